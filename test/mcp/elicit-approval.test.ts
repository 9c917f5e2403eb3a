// Approval by elicitation without tasks, with the official TypeScript client over
// Streamable HTTP (stateless: the answer comes in a POST of its own): a client that
// declares elicitation is asked, inside the same tools/call, to approve or deny each
// pending call, and the run finishes in that request; declining (or not answering in
// time) leaves the run paused in the journal, as does a client without elicitation.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import type { PausedRun, ToolRuntime } from '../../src/index.ts';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer, serveMcpHttp, type McpHttpServer } from '../../src/mcp/index.ts';
import { gatedRuntime, readBodyLog } from '../durable-runs/fixtures/gated-tools.ts';

const TOKEN = 'elicit-test-token-0123456789';
const TWO_WRITES =
  'const a = await tools.write({ v: 1 }); let b; try { b = await tools.write({ v: 2 }); } catch (e) { b = e.code; } return { a: a.wrote, b };';
let dir = '';
const cleanups: (() => Promise<void>)[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-elicit-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
async function start(elicitationTimeoutMs?: number): Promise<{ rt: ToolRuntime; server: McpHttpServer; log: string }> {
  n += 1;
  const log = join(dir, `body-${n}.log`);
  const rt = gatedRuntime(join(dir, `journal-${n}.jsonl`), log);
  const server = await serveMcpHttp(rt, {
    token: TOKEN,
    ...(elicitationTimeoutMs === undefined ? {} : { elicitationTimeoutMs }),
  });
  cleanups.push(async () => {
    await server.close();
    await rt.close();
  });
  return { rt, server, log };
}

type Answer = (
  request: ElicitRequest['params'],
) => Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string> }>;

async function connect(
  server: McpHttpServer,
  answer?: Answer,
): Promise<{ client: Client; asked: ElicitRequest['params'][] }> {
  const asked: ElicitRequest['params'][] = [];
  const client = new Client(
    { name: 'elicit', version: '1' },
    answer === undefined ? {} : { capabilities: { elicitation: {} } },
  );
  if (answer !== undefined)
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return answer(request.params);
    });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  cleanups.push(() => client.close());
  return { client, asked };
}

const call = (client: Client, code: string) =>
  client.callTool({ name: 'run_code', arguments: { description: 'writes', code } }, undefined, {
    timeout: 60_000,
  }) as Promise<CallToolResult>;

const pausedOf = (result: CallToolResult): PausedRun | undefined =>
  (result.structuredContent as { paused?: PausedRun } | undefined)?.paused;

describe('approval by elicitation (no tasks), official TS client over HTTP', () => {
  it('asks inside the request, once per pause, and the run finishes there: approve then deny', async () => {
    const { server, log, rt } = await start();
    const { client, asked } = await connect(server, async (params) => {
      const fields = Object.keys((params as { requestedSchema: { properties: object } }).requestedSchema.properties);
      // The first pause approves write 1; the second denies write 2.
      return {
        action: 'accept',
        content: Object.fromEntries(fields.map((f) => [f, asked.length === 1 ? 'approve' : 'deny'])),
      };
    });
    const result = await call(client, TWO_WRITES);
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({ logs: [], result: { a: 1, b: 'DENIED' } });
    expect(asked).toHaveLength(2);
    const first = asked[0] as {
      message: string;
      requestedSchema: { properties: Record<string, unknown>; required: string[] };
    };
    expect(first.message).toMatch(/^The program is paused \(run [^)]+\): 1 tool call awaits your approval/u);
    expect(first.requestedSchema.properties).toEqual({
      call_1: { type: 'string', title: 'Write 1?', description: 'tools.write({"v":1})', enum: ['approve', 'deny'] },
    });
    expect(first.requestedSchema.required).toEqual(['call_1']);
    expect(readBodyLog(log).map((b) => b.args)).toEqual([{ v: 1 }]);
    expect(await rt.runs({ status: 'paused' })).toEqual([]);
  });

  it("a decline leaves the run paused in the journal, with today's paused result", async () => {
    const { server, log, rt } = await start();
    const { client, asked } = await connect(server, async () => ({ action: 'decline' }));
    const result = await call(client, TWO_WRITES);
    const paused = pausedOf(result);
    expect(asked).toHaveLength(1);
    expect(paused?.pending.map((p) => p.title)).toEqual(['Write 1?']);
    expect((await rt.runs({ status: 'paused' })).map((r) => r.runId)).toEqual([paused!.runId]);
    expect(readBodyLog(log)).toEqual([]);
  });

  it('an answer that does not decide every call, or none within the timeout, leaves it paused', async () => {
    const { server, rt } = await start(500);
    let round = 0;
    const { client, asked } = await connect(server, async () => {
      round += 1;
      if (round === 1) return { action: 'accept', content: { call_1: 'maybe' } };
      return new Promise(() => {}); // never answers
    });
    const odd = await call(client, TWO_WRITES);
    expect(pausedOf(odd)).toBeDefined();
    const late = await call(client, TWO_WRITES);
    expect(pausedOf(late)).toBeDefined();
    expect(asked).toHaveLength(2);
    expect(await rt.runs({ status: 'paused' })).toHaveLength(2);
  });

  it('a client without elicitation gets the paused result and no question', async () => {
    const { server } = await start();
    const { client } = await connect(server);
    const result = await call(client, TWO_WRITES);
    expect(pausedOf(result)?.pending).toHaveLength(1);
  });

  it('over one connection (createMcpServer on an in-memory transport pair) the same way', async () => {
    n += 1;
    const log = join(dir, `body-${n}.log`);
    const rt = gatedRuntime(join(dir, `journal-${n}.jsonl`), log);
    const server = createMcpServer(rt);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'elicit', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { call_1: 'approve' } }));
    await client.connect(clientSide);
    cleanups.push(async () => {
      await client.close();
      await server.close();
      await rt.close();
    });
    const result = await call(client, 'const a = await tools.write({ v: 7 }); return a.wrote;');
    expect(result.structuredContent).toEqual({ logs: [], result: 7 });
    expect(readBodyLog(log).map((b) => b.args)).toEqual([{ v: 7 }]);
  });
});
