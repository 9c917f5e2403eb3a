// Provider-safe tool names: a name outside `^[a-zA-Z0-9_-]{1,N}$` is sent as an alias
// that is safe, unique in the list, stable whatever the order, and mapped back to the
// registered name; safe names are sent unchanged.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { fromAnthropicToolUses, toAnthropicTools } from '../../src/adapters/anthropic.ts';
import {
  fromOpenAIChatToolCalls,
  fromOpenAIResponsesCalls,
  toOpenAIChatTools,
  toOpenAIResponsesTools,
} from '../../src/adapters/openai.ts';
import {
  ANTHROPIC_MAX_TOOL_NAME,
  OPENAI_MAX_TOOL_NAME,
  providerToolNames,
  registeredToolNames,
} from '../../src/adapters/provider-tool-names.ts';
import { createToolRuntime, defineTool, type ToolSchemaProjection } from '../../src/index.ts';

const schema = (name: string): ToolSchemaProjection => ({ name, description: '', parameters: { type: 'object' } });
const SAFE = (max: number): RegExp => new RegExp(`^[a-zA-Z0-9_-]{1,${max}}$`, 'u');

describe('providerToolNames', () => {
  it('keeps safe names, replaces unsafe characters, and hashes when the simple alias is taken or too long', () => {
    const long = `ns.${'x'.repeat(80)}`;
    const names = providerToolNames(
      ['tickets.count', 'get_order', 'a.b', 'a_b', 'x:y', 'x/y', long, 'é'],
      OPENAI_MAX_TOOL_NAME,
    );
    expect(names.get('get_order')).toBe('get_order');
    expect(names.get('a_b')).toBe('a_b');
    expect(names.get('tickets.count')).toBe('tickets_count');
    // 'a.b' would become 'a_b', which a registered tool already is.
    expect(names.get('a.b')).toMatch(/^a_b_[0-9a-f]{8}$/u);
    // 'x:y' and 'x/y' would both become 'x_y': neither wins by order, both are hashed.
    expect(names.get('x:y')).toMatch(/^x_y_[0-9a-f]{8}$/u);
    expect(names.get('x/y')).toMatch(/^x_y_[0-9a-f]{8}$/u);
    expect(names.get('x:y')).not.toBe(names.get('x/y'));
    expect(names.get(long)).toHaveLength(OPENAI_MAX_TOOL_NAME);
    expect(names.get('é')).toBe('_');
  });

  it('gives every list safe, unique, order-independent aliases that map back (property)', () => {
    const name = fc.string({
      minLength: 1,
      maxLength: 140,
      unit: fc.constantFrom('a', 'b', '_', '-', '.', ':', '/', 'é', '1'),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { minLength: 1, maxLength: 12 }),
        fc.constantFrom(ANTHROPIC_MAX_TOOL_NAME, OPENAI_MAX_TOOL_NAME),
        (list, max) => {
          const aliases = providerToolNames(list, max);
          const sent = list.map((n) => aliases.get(n)!);
          for (const alias of sent) expect(alias).toMatch(SAFE(max));
          expect(new Set(sent).size).toBe(list.length);
          expect(providerToolNames([...list].reverse(), max)).toEqual(aliases);
          const back = registeredToolNames(list.map(schema), max);
          expect(sent.map(back)).toEqual(list);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('maps an unknown or safe name back unchanged, and a hashed alias from an older list too', () => {
    const back = registeredToolNames([schema('tickets.count'), schema('lookup')], ANTHROPIC_MAX_TOOL_NAME);
    expect(back('lookup')).toBe('lookup');
    expect(back('made_up')).toBe('made_up');
    expect(back('tickets_count')).toBe('tickets.count');
    const hashed = providerToolNames(['tickets.count', 'tickets_count'], ANTHROPIC_MAX_TOOL_NAME).get('tickets.count')!;
    expect(back(hashed)).toBe('tickets.count');
  });
});

describe('the adapters send aliases and take them back', () => {
  function runtime() {
    const rt = createToolRuntime({ sandbox: false });
    rt.register(
      defineTool({
        name: 'tickets.count',
        description: 'Counts tickets.',
        parameters: {},
        output: { schema: { type: 'integer' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
        execute: () => 3,
      }),
    );
    const agent = rt.createAgent('support');
    rt.register(
      defineTool({
        name: 'crm:lookup',
        description: 'Agent-only.',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'found' }] },
        execute: () => null,
      }),
      { agent },
    );
    return rt;
  }

  it('Anthropic and OpenAI tool lists carry the aliases; the from* functions return the registered names', () => {
    const rt = runtime();
    expect(toAnthropicTools(rt.schemas()).map((t) => t.name)).toEqual(['tickets_count']);
    expect(toOpenAIChatTools(rt.schemas()).map((t) => t.function.name)).toEqual(['tickets_count']);
    expect(toOpenAIResponsesTools(rt.schemas({ agent: 'support' })).map((t) => t.name)).toEqual([
      'crm_lookup',
      'tickets_count',
    ]);
    expect(
      fromAnthropicToolUses([{ type: 'tool_use', id: 't1', name: 'tickets_count', input: {} } as never], rt),
    ).toEqual([{ callId: 't1', name: 'tickets.count', arguments: {} }]);
    expect(
      fromOpenAIChatToolCalls(
        [{ id: 'c1', type: 'function', function: { name: 'tickets_count', arguments: '{}' } }],
        rt,
      )[0]!.name,
    ).toBe('tickets.count');
    // An agent's list: give the agent, or the list that was sent.
    const item = { type: 'function_call', call_id: 'r1', name: 'crm_lookup', arguments: '{}' };
    expect(fromOpenAIResponsesCalls([item], rt, { agent: 'support' })[0]!.name).toBe('crm:lookup');
    expect(fromOpenAIResponsesCalls([item], rt.schemas({ agent: 'support' }))[0]!.name).toBe('crm:lookup');
    // Without the runtime, names pass unchanged (fine when none was changed).
    expect(fromOpenAIResponsesCalls([item])[0]!.name).toBe('crm_lookup');
  });

  it('a call by alias runs the registered tool', async () => {
    const rt = runtime();
    const turn = await rt.executeTurn(
      fromAnthropicToolUses([{ type: 'tool_use', id: 't1', name: 'tickets_count', input: {} } as never], rt),
    );
    expect(turn.results[0]).toMatchObject({ name: 'tickets.count', isError: false, value: 3 });
  });
});

describe("a registered name equal to another name's hashed alias", () => {
  const nameOnly = (name: string): ToolSchemaProjection =>
    ({ name, description: 'd', parameters: { type: 'object' } }) as ToolSchemaProjection;
  // "x.y" and "x/y" both sanitise to "x_y", so both get hashed aliases; "x_y_b24ca9b7" is
  // "x.y"'s 8-hex alias, registered as a tool of its own.
  const squatter = 'x_y_b24ca9b7';
  const names = ['x.y', 'x/y', squatter];

  it('(the premise: without the squatter, "x.y" is sent as it)', () => {
    expect(providerToolNames(['x.y', 'x/y'], OPENAI_MAX_TOOL_NAME).get('x.y')).toBe(squatter);
  });

  it('never sends two tools under one name', () => {
    for (const max of [ANTHROPIC_MAX_TOOL_NAME, OPENAI_MAX_TOOL_NAME]) {
      const aliases = providerToolNames(names, max);
      expect(aliases.get(squatter)).toBe(squatter);
      expect(new Set(aliases.values()).size).toBe(3);
      for (const alias of aliases.values()) expect(alias).toMatch(new RegExp(`^[a-zA-Z0-9_-]{1,${max}}$`, 'u'));
    }
  });

  it('maps every sent name back to its own tool: a call of the squatter is never redirected to "x.y"', () => {
    const schemas = names.map(nameOnly);
    const back = registeredToolNames(schemas, OPENAI_MAX_TOOL_NAME);
    const aliases = providerToolNames(names, OPENAI_MAX_TOOL_NAME);
    for (const name of names) expect(back(aliases.get(name)!)).toBe(name);
    expect(back(squatter)).toBe(squatter);
  });
});
