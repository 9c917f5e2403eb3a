// 1,000 deferred tools in ptc mode: everything rt.schemas() sends stays within
// 100,000 characters (as JSON, SDK embedded), and a program can still find, load and
// call any of them: $search by keyword, $describe for the full signature, then the call.
import { describe, expect, it } from '@jest/globals';
import { checkProgram, generateSdk } from '../../sdk-gen/index.ts';
import { defineTool, type Tool } from '../../src/index.ts';
import { ptcRuntimes, runCode } from './helpers.ts';

const DOMAINS = [
  'crm',
  'billing',
  'inventory',
  'shipping',
  'support',
  'analytics',
  'identity',
  'calendar',
  'storage',
  'messaging',
];
const VERBS = ['search', 'get', 'create', 'update', 'archive', 'export', 'import', 'merge', 'tag', 'count'];

/** Tool n: a realistic name, a long description (~250 characters) with one unique keyword, a typed schema. */
function manyTools(count: number): Tool[] {
  return Array.from({ length: count }, (_, n) => {
    const domain = DOMAINS[n % DOMAINS.length]!;
    const verb = VERBS[Math.floor(n / DOMAINS.length) % VERBS.length]!;
    const id = String(n).padStart(4, '0');
    return defineTool({
      name: `acme_${domain}_${verb}_records_${id}`,
      description:
        `${verb[0]!.toUpperCase()}${verb.slice(1)} ${domain} records of the Acme workspace (batch ${id}, keyword kw${id}). ` +
        'Results are paginated with a cursor; filters combine with AND; every call is audited and rate limited to 100 calls per minute per user.',
      parameters: {
        query: { type: 'string', required: true, minLength: 1, maxLength: 200, description: 'Free-text filter.' },
        limit: { type: 'integer', minimum: 1, maximum: 50, description: 'Page size.' },
        cursor: { type: 'string', description: 'Opaque cursor of the previous page.' },
      },
      output: {
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: { tool: { type: 'string', required: true }, query: { type: 'string', required: true } },
        },
        render: (_args, value) => [{ type: 'text', text: value.tool }],
      },
      deferLoading: true,
      isConcurrencySafe: () => true,
      execute: (args) => ({ tool: id, query: args.query }),
    });
  });
}

describe('1,000 deferred tools', () => {
  const runtime = ptcRuntimes();
  const tools = manyTools(1_000);

  it('everything rt.schemas() sends in ptc mode is at most 100,000 characters as JSON, the SDK embedded; names all listed', () => {
    const rt = runtime();
    for (const tool of tools) rt.register(tool);
    const schemas = rt.schemas();
    expect(schemas.map((s) => s.name)).toEqual(['run_code']);
    const sent = JSON.stringify(schemas).length;
    expect(sent).toBeLessThanOrEqual(100_000);
    expect(rt.prompt()).toEqual([]);
    // Every tool is listed by name, with the start of its summary.
    const description = schemas[0]!.description;
    for (const tool of tools) expect(description).toContain(` ${tool.name}: Deferred;`);
    expect(description).toMatch(/\/\*\* Search crm records[^*]*… \*\/ acme_crm_search_records_0000: Deferred;/u);
  });

  it('with the SDK as a prompt section instead, schemas and prompt together stay within the budget', () => {
    const rt = runtime({ embedSdkInDescription: false });
    for (const tool of tools) rt.register(tool);
    expect(JSON.stringify(rt.schemas()).length + JSON.stringify(rt.prompt()).length).toBeLessThanOrEqual(100_000);
  });

  it('a program finds a tool by keyword, loads its full signature, and the next program calls it; bad arguments are INVALID_ARGS', async () => {
    const rt = runtime();
    for (const tool of tools) rt.register(tool);
    const found = await runCode(
      rt,
      `
      const hits = await tools.$search({ query: 'shipping kw0773' });
      console.log(await tools.$describe({ name: hits[0].name }));
      return hits.map((h) => h.name);`,
    );
    expect(found.error).toBeUndefined();
    const value = found.value as { logs: string[]; result: string[] };
    expect(value.result[0]).toBe('acme_shipping_merge_records_0773');
    expect(value.result.length).toBeLessThanOrEqual(10);
    expect(value.logs[0]).toBe(`declare const tools: {
  /** ${tools[773]!.description} */ acme_shipping_merge_records_0773: Tool<{ /** Free-text filter. @minLength 1 @maxLength 200 */ query: string; /** Page size. @minimum 1 @maximum 50 */ limit?: number; /** Opaque cursor of the previous page. */ cursor?: string }, { tool: string; query: string }>;
};
`);
    const program = `
      const r = await tools.acme_shipping_merge_records_0773({ query: 'late parcels', limit: 5 });
      let bad = '';
      try { await tools.acme_shipping_merge_records_0773({ query: '', limit: 500 }); } catch (e) { bad = e.code; }
      return [r.tool, r.query, bad];`;
    expect(checkProgram(rt.sdk(), program)).toEqual([]);
    const called = await runCode(rt, program);
    expect(called.value).toEqual({ logs: [], result: ['0773', 'late parcels', 'INVALID_ARGS'] });
  });

  it('$describe of an unknown name says how to find tools; the built-ins cannot be called directly or registered', async () => {
    const rt = runtime();
    for (const tool of tools.slice(0, 3)) rt.register(tool);
    const unknown = await runCode(
      rt,
      `try { await tools.$describe({ name: 'nope' }); } catch (e) { return e.code + ': ' + e.message; }`,
    );
    expect(unknown.value).toEqual({
      logs: [],
      result: 'UNKNOWN_TOOL: $describe: no tool named "nope"; find tools with tools.$search({ query })',
    });
    const direct = await rt.execute({ callId: 'd', name: '$search', arguments: { query: 'crm' } });
    expect(direct.error?.code).toBe('UNKNOWN_TOOL');
    const impostor = defineTool({
      name: '$search',
      description: 'd',
      parameters: {},
      output: { schema: { type: 'json' }, render: () => [] },
      execute: () => null,
    });
    expect(() => rt.register(impostor)).toThrow(/"\$search" is reserved for a built-in function of run_code programs/u);
  });
});

describe('the deferred listing under its budget', () => {
  const tool = (name: string) => ({
    name,
    description: 'A tool that does one thing well, described at some length for the model.',
    parameters: { type: 'object' },
    deferLoading: true,
  });

  it('shrinks summaries as tools multiply, then drops them, then lists what fits and keeps the rest callable', () => {
    const few = generateSdk([tool('a'), tool('b')]);
    expect(few).toContain(
      '  /** A tool that does one thing well, described at some length for the model. */ a: Deferred;',
    );
    const squeezed = generateSdk([tool('a'), tool('b')], { deferredBudget: 120 });
    expect(squeezed).toContain('  /** A tool that does one thing well,… */ a: Deferred;');
    const names = generateSdk([tool('a'), tool('b')], { deferredBudget: 40 });
    expect(names).toContain('\n  a: Deferred;\n  b: Deferred;\n');
    const partial = generateSdk([tool('a'), tool('b'), tool('c')], { deferredBudget: 30 });
    expect(partial).toContain(
      '\n  a: Deferred;\n  // …and 2 more deferred tools, not listed here: find them with tools.$search.\n',
    );
    expect(partial).toContain('} & { readonly [name: string]: Deferred };');
    expect(checkProgram(partial, 'const r = await tools.c({ x: 1 }); await tools.a({}); return r;')).toEqual([]);
  });
});
