// $search ranks by the query's words; a query word that only starts a description word
// ("refund" for "Refunds a payment") still finds the tool, ranked below an exact match.
import { describe, expect, it } from '@jest/globals';
import { defineTool } from '../../src/index.ts';
import { MAX_SEARCHES_PER_RUN, searchTools } from '../../src/ptc/deferred-builtins.ts';
import { ptcRuntimes, runCode } from './helpers.ts';

const tool = (name: string, description: string) =>
  defineTool({
    name,
    description,
    parameters: {},
    output: { schema: { type: 'json' }, render: () => [] },
    execute: () => null,
  });

describe('searchTools', () => {
  const tools = [
    tool('tool_1', 'Refunds a payment by invoice id.'),
    tool('tool_2', 'Issues a refund for an order.'),
    tool('tool_3', 'Lists invoices.'),
  ];

  it('finds a tool whose description word starts with the query word, below an exact match', () => {
    expect(searchTools(tools, 'refund', 10).map((hit) => hit.name)).toEqual(['tool_2', 'tool_1']);
    expect(searchTools(tools, 'invoice', 10).map((hit) => hit.name)).toEqual(['tool_1', 'tool_3']);
  });

  it('does not match on one- or two-letter word starts', () => {
    expect(searchTools(tools, 'pa', 10)).toEqual([]);
  });
});

describe('$search bounds', () => {
  // 1,000 tools with long descriptions: tokenizing them all took ~200 ms of the host's
  // main thread on every call; they are now tokenized once per definition.
  const many = Array.from({ length: 1_000 }, (_, i) =>
    tool(`tool_${i}`, `Tool number ${i} ${'handles shipping invoices refunds and customer accounts '.repeat(40)}`),
  );

  it('indexes descriptions once: 50 searches over 1,000 long descriptions stay cheap', () => {
    searchTools(many, 'warm', 10);
    const started = performance.now();
    for (let i = 0; i < 50; i++) searchTools(many, `shipping number ${i}`, 10);
    // Tokenizing on every call made these 50 take ~10 s; indexed once, tens of ms (a loaded
    // machine's preemption included, well under this).
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  const runtime = ptcRuntimes();

  it(`refuses the search after ${MAX_SEARCHES_PER_RUN} in one run; the next run searches again`, async () => {
    const rt = runtime();
    for (const t of many.slice(0, 20)) rt.register({ ...t, deferLoading: true });
    const result = await runCode(
      rt,
      `let n = 0; try { for (let i = 0; i < 1000; i++) { await tools.$search({ query: 'shipping' }); n++; } } catch (e) { return [n, e.code, e.message]; } return [n];`,
    );
    expect(result.value).toEqual({
      logs: [],
      result: [MAX_SEARCHES_PER_RUN, 'TOOL_ERROR', expect.stringContaining('MAX_SEARCHES_PER_RUN')],
    });
    const next = await runCode(rt, `return (await tools.$search({ query: 'shipping' })).length;`, { callId: 'next' });
    expect(next.value).toEqual({ logs: [], result: 10 });
  });
});
