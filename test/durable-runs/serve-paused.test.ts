// `ptc serve` (createMcpServer) hands a paused run to the client as an ordinary tool
// result: not an error, `structuredContent.paused` with the run id and the pending calls,
// text naming them; the run is then resumed on the runtime.
import { expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMemoryJournal, type PausedRun } from '../../src/index.ts';
import { createMcpServer } from '../../src/mcp/index.ts';
import { gatedRuntime } from './fixtures/gated-tools.ts';

it('a paused run reaches the MCP client as a non-error result carrying paused', async () => {
  const rt = gatedRuntime(createMemoryJournal(), '/dev/null', { sandbox: { isolation: 'in-process', poolSize: 1 } });
  const server = createMcpServer(rt);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  const result = await client.callTool({
    name: 'run_code',
    arguments: {
      description: 'two writes',
      code: 'return (await Promise.all([tools.write({ v: 1 }), tools.write({ v: 2 })])).map((w) => w.wrote);',
    },
  });
  expect(result.isError).toBe(false);
  const paused = (result.structuredContent as { paused: PausedRun }).paused;
  expect(paused.pending.map((p) => p.arguments)).toStrictEqual([{ v: 1 }, { v: 2 }]);
  const text = (result.content as { type: string; text: string }[])[0]!.text;
  expect(text).toContain(`run ${paused.runId}`);
  expect(text).toContain('2 tool calls await');
  const final = await rt.resume(paused.runId, Object.fromEntries(paused.pending.map((p) => [p.callId, 'approve'])));
  expect((final.value as { result: unknown }).result).toStrictEqual([1, 2]);
  await client.close();
  await rt.close();
});
