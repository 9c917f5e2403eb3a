// Full JSON Schema through MCP import: our fixture server (every keyword, both
// dialects, one remote $ref) and the published server-memory. Every tool is imported,
// typed, callable; invalid arguments are refused with INVALID_ARGS before the server
// sees them; only the remote $ref is refused, with a warning naming tool and keyword.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkProgram } from '../../sdk-gen/index.ts';
import { createToolRuntime, type ToolRuntime } from '../../src/index.ts';
import { importMcpTools, type McpToolImport } from '../../src/mcp/index.ts';
import { JSON_SCHEMA_SERVER, MEMORY } from './helpers.ts';

const run = (rt: ToolRuntime, code: string) =>
  rt.execute({ callId: `r-${Math.random()}`, name: 'run_code', arguments: { description: 'test', code } });

describe('importMcpTools with our JSON Schema fixture server', () => {
  let rt: ToolRuntime;
  let imported: McpToolImport;
  const warnings: string[] = [];
  beforeAll(async () => {
    rt = createToolRuntime({ mode: 'both' });
    imported = await importMcpTools(rt, {
      servers: [{ command: process.execPath, args: [JSON_SCHEMA_SERVER] }],
      onWarning: (w) => warnings.push(w),
    });
  });
  afterAll(async () => {
    await imported?.close();
    await rt?.close();
  });

  it('imports every tool but the remote $ref one, which is refused with a warning naming tool and keyword', () => {
    expect(imported.tools).toEqual([
      'create_contact',
      'count_tree',
      'measure_shape',
      'tag_item',
      'legacy_pair',
      'odd_output',
      'weather_now',
    ]);
    expect(imported.skipped).toEqual([expect.objectContaining({ tool: 'fetch_remote', keyword: '$ref' })]);
    expect(warnings).toEqual([
      expect.stringContaining('tool "odd_output": output.schema is not validated here'),
      expect.stringMatching(
        /skipped tool "fetch_remote" \(refused schema keyword "\$ref"\).*https:\/\/example\.com\/schemas\/thing\.json/u,
      ),
    ]);
  });

  it.each([
    [
      'a wrong format',
      'create_contact',
      { name: 'Ada', email: 'not-an-email' },
      '/email must be an email address (format "email")',
    ],
    [
      'maxLength',
      'create_contact',
      { name: 'x'.repeat(81), email: 'a@b.co' },
      '/name must NOT have more than 80 characters',
    ],
    ['a pattern', 'create_contact', { name: 'Ada', email: 'a@b.co', handle: 'Ada' }, '/handle must match pattern'],
    ['minimum', 'create_contact', { name: 'Ada', email: 'a@b.co', limit: 0 }, '/limit must be >= 1'],
    ['const', 'create_contact', { name: 'Ada', email: 'a@b.co', kind: 'robot' }, '/kind must be equal to constant'],
    [
      'dependentRequired',
      'create_contact',
      { name: 'Ada', email: 'a@b.co', start: '2026-01-01' },
      'must have property end when property start is present',
    ],
    [
      'a date format',
      'create_contact',
      { name: 'Ada', email: 'a@b.co', start: '2026-13-01', end: '2026-01-02' },
      '/start must be a date (YYYY-MM-DD) (format "date")',
    ],
    [
      'a closed object',
      'create_contact',
      { name: 'Ada', email: 'a@b.co', nick: 'A' },
      'must NOT have additional properties',
    ],
    [
      'a recursive $ref',
      'count_tree',
      { root: { label: 'a', children: [{ label: 'b', children: [{ children: [] }] }] } },
      "/root/children/0/children/0 must have required property 'label'",
    ],
    ['a oneOf member', 'measure_shape', { unit: 'cm', shape: { kind: 'circle', radius: 0 } }, '/shape'],
    ['allOf', 'measure_shape', { shape: { kind: 'square', side: 2 } }, "must have required property 'unit'"],
    ['patternProperties', 'tag_item', { labels: { y: 'no' } }, '/labels must NOT have additional properties'],
    ['propertyNames', 'tag_item', { counts: { Upper: 1 } }, '/counts property name must be valid'],
    ['if/then', 'tag_item', { mode: 'strict' }, "must have required property 'reason'"],
    ['a false subschema', 'tag_item', { nothing: 1 }, '/nothing'],
    ['a draft-07 definitions $ref', 'legacy_pair', { currency: 'usd' }, '/currency must match pattern'],
    [
      'draft-07 dependencies',
      'legacy_pair',
      { pair: ['a', 1] },
      'must have property currency when property pair is present',
    ],
  ])('refuses %s with INVALID_ARGS before the server sees it', async (_label, name, args, message) => {
    const result = await rt.execute({ callId: `bad-${name}`, name, arguments: args });
    expect(result.error).toMatchObject({ code: 'INVALID_ARGS', message: expect.stringContaining(message) });
  });

  it('calls each tool with valid arguments, from a program', async () => {
    const result = await run(
      rt,
      `
      const contact = await tools.create_contact({ name: 'Ada', email: 'ada@example.com', limit: 20, kind: 'person', start: '2026-01-01', end: '2026-01-02' });
      const nodes = await tools.count_tree({ root: { label: 'a', children: [{ label: 'b' }, { label: 'c', children: [{ label: 'd' }] }] } });
      const shape = await tools.measure_shape({ unit: 'm', shape: { kind: 'circle', radius: 2 } });
      const tagged = await tools.tag_item({ labels: { 'x-a': 'y' }, counts: { ab: 1 }, mode: 'strict', reason: 'r', anything: [1, 'two'], nothing: null });
      const pair = await tools.legacy_pair({ currency: 'USD', pair: ['EUR', 1.1] });
      const odd = await tools.odd_output({ n: 'not a number' });
      return { email: contact.email, nodes, shape: typeof shape, tagged: typeof tagged, pair: typeof pair, odd };`,
    );
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual({
      logs: [],
      result: {
        email: 'ada@example.com',
        nodes: '4',
        shape: 'string',
        tagged: 'string',
        pair: 'string',
        odd: { n: 'not a number' },
      },
    });
  });

  it('keeps the structuredContent of a tool without an outputSchema, typed JsonValue; text-only tools stay text', async () => {
    // No result type argument: Tool<Args> resolves to JsonValue.
    expect(rt.sdk()).toMatch(/ weather_now: Tool<\{[^<>]*\}>;\n/u);
    expect(rt.sdk()).toContain(' count_tree: Tool<{ root: CountTreeNode }>;\n');
    const result = await run(
      rt,
      `const w = await tools.weather_now({ city: 'Oslo' });
      const n = await tools.count_tree({ root: { label: 'a' } });
      return { w, temperature: (w as { temperature: number }).temperature + 1, n, nType: typeof n };`,
    );
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual({
      logs: [],
      result: {
        w: { city: 'Oslo', temperature: 21, unit: 'C', sky: ['clear'] },
        temperature: 22,
        n: '1',
        nType: 'string',
      },
    });
  });

  it('types every tool: the SDK type-checks, and a model program using them does too', () => {
    const sdk = rt.sdk();
    for (const name of imported.tools) expect(sdk).toContain(` ${name}: Tool<`);
    expect(
      checkProgram(
        sdk,
        `
      const c = await tools.create_contact({ name: 'Ada', email: 'a@b.co' });
      const n: string = c.email;
      await tools.measure_shape({ unit: 'cm', shape: { kind: 'square', side: 1 } });
      return n;`,
      ),
    ).toEqual([]);
  });
});

describe(`importMcpTools with @modelcontextprotocol/server-memory ${MEMORY.version}`, () => {
  let rt: ToolRuntime;
  let imported: McpToolImport;
  const dir = mkdtempSync(join(tmpdir(), 'ptc-memory-'));
  const warnings: string[] = [];
  beforeAll(async () => {
    rt = createToolRuntime({ mode: 'ptc' });
    // The MCP SDK's stdio client passes only a small default environment: give the server what it needs.
    imported = await importMcpTools(rt, {
      servers: [
        {
          command: process.execPath,
          args: [MEMORY.entry],
          env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl'), PATH: process.env.PATH ?? '' },
        },
      ],
      onWarning: (w) => warnings.push(w),
    });
  });
  afterAll(async () => {
    await imported?.close();
    await rt?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports all nine tools, typed, without a warning', () => {
    expect([...imported.tools].sort()).toEqual([
      'add_observations',
      'create_entities',
      'create_relations',
      'delete_entities',
      'delete_observations',
      'delete_relations',
      'open_nodes',
      'read_graph',
      'search_nodes',
    ]);
    expect(imported.skipped).toEqual([]);
    expect(warnings).toEqual([]);
    expect(rt.sdk()).toMatch(
      / create_entities: Tool<\{\s*entities: \(?\{\s*\/\*\* The name of the entity \*\/ name: string;/su,
    );
  });

  it('every tool is callable from a program; the knowledge graph round-trips', async () => {
    const result = await run(
      rt,
      `
      await tools.create_entities({ entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }, { name: 'Engine', entityType: 'machine', observations: [] }] });
      await tools.create_relations({ relations: [{ from: 'Ada', to: 'Engine', relationType: 'programmed' }] });
      await tools.add_observations({ observations: [{ entityName: 'Engine', contents: ['analytical'] }] });
      const found = await tools.search_nodes({ query: 'analytical' });
      const opened = await tools.open_nodes({ names: ['Ada'] });
      await tools.delete_observations({ deletions: [{ entityName: 'Ada', observations: ['wrote the first program'] }] });
      await tools.delete_relations({ relations: [{ from: 'Ada', to: 'Engine', relationType: 'programmed' }] });
      await tools.delete_entities({ entityNames: ['Engine'] });
      const graph = await tools.read_graph({});
      return { found: found.entities.map((e) => e.name), opened: opened.entities.length, left: graph.entities.map((e) => e.name), relations: graph.relations.length };`,
    );
    expect(result.error).toBeUndefined();
    expect(result.value).toEqual({ logs: [], result: { found: ['Engine'], opened: 1, left: ['Ada'], relations: 0 } });
  });

  it('refuses invalid arguments with INVALID_ARGS', async () => {
    const result = await run(
      rt,
      `
      try { await tools.create_entities({ entities: [{ name: 'Ada' }] }); } catch (e) { return e.code + ' ' + e.message; }`,
    );
    expect(result.value).toEqual({
      logs: [],
      result: expect.stringMatching(
        /^INVALID_ARGS invalid arguments for tool "create_entities": \/entities\/0 must have required property/u,
      ),
    });
  });
});
