// A runtime tool that holds every call until the test opens its gate: for tests that must
// see what happens while a program (or a client) still waits on a tool.
import { defineTool } from '../../src/index.ts';
import { gate } from './gate.ts';

/** The tool `slow`: doubles `n` once `open()` was called; `started()` counts the calls that reached its body. */
export function gatedDoubler() {
  const held = gate();
  let started = 0;
  const tool = defineTool({
    name: 'slow',
    description: 'Doubles n once released.',
    parameters: { n: { type: 'number', required: true } },
    output: { schema: { type: 'number' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
    execute: async ({ n }) => {
      started += 1;
      await held.passed;
      return n * 2;
    },
  });
  return { tool, open: held.open, started: (): number => started };
}
