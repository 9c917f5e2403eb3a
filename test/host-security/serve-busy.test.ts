// `ptc serve` (a real stdio child, the MCP SDK's real Client) flooded with CPU-bound
// programs: past --max-active-runs a run_code request is answered at once with an
// isError result saying busy, retry later; the server lives on and, once the loops
// are cancelled, an ordinary run works.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { PTC_BIN } from '../mcp/helpers.ts';
import { gate } from '../support/gate.ts';

const runCode = (code: string) => ({ name: 'run_code', arguments: { description: 'test program', code } });
const textOf = (result: object): string =>
  (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .map((block) => block.text ?? '')
    .join('\n');

describe('ptc serve --max-active-runs 2', () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--no-node-snapshot', PTC_BIN, 'serve', '--mode', 'ptc', '--demo-tools', '--max-active-runs', '2'],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'serve-busy-test', version: '1' });

  beforeAll(async () => {
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
  });

  it('two infinite loops hold both slots; a third request is refused at once as busy; after cancelling them a run works', async () => {
    const stops = [new AbortController(), new AbortController()];
    const inside: Promise<void>[] = [];
    const loops = stops.map((stop) => {
      const running = gate();
      inside.push(running.passed);
      // The program's console line arrives as a progress notification: it is running.
      return client
        .callTool(runCode('console.log("looping"); while (true) {}'), undefined, {
          signal: stop.signal,
          onprogress: () => running.open(),
          timeout: 120_000,
        })
        .catch((error: unknown) => error as Error);
    });
    await Promise.all(inside);
    const refused = await client.callTool(runCode('return "never runs"'));
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      'Error: run_code failed (busy): 2 runs are already in flight on this runtime (maxActiveRuns: 2); this program did not run. Retry it once one of them has finished.',
    );
    for (const stop of stops) stop.abort();
    expect((await Promise.all(loops)).map((outcome) => outcome instanceof Error)).toEqual([true, true]);
    // The server cancels the runs; their slots free as they end (an ordinary run may briefly still see busy).
    let after = await client.callTool(runCode('return 6 * 7'));
    for (let i = 0; i < 50 && after.isError === true && textOf(after).includes('(busy)'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await client.callTool(runCode('return 6 * 7'));
    }
    expect(after.isError).toBe(false);
    expect(textOf(after)).toBe('42');
  }, 120_000);
});
