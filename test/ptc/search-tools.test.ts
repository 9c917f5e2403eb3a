// $search ranks by the query's words; a query word that only starts a description word
// ("refund" for "Refunds a payment") still finds the tool, ranked below an exact match.
import { describe, expect, it } from '@jest/globals';
import { defineTool } from '../../src/index.ts';
import { searchTools } from '../../src/ptc/deferred-builtins.ts';

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
