// A cancel over Streamable HTTP reaches the run, as over stdio: the official TypeScript
// client's AbortSignal and its request timeout (both send notifications/cancelled, in a
// POST of their own that a stateless server used to drop) abort the tool body and free
// the run's slot. A cancel never reaches another client's call of the same request id.
// (The Python MCP client is not installed here — pip cannot reach PyPI — so it is not run.)
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import { createToolRuntime, defineTool } from '../../src/index.ts';
import { serveMcpHttp, type McpHttpServer } from '../../src/mcp/index.ts';

const TOKEN = 'cancel-test-token-0123456789';
let sandbox: Sandbox | undefined;
const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});
afterAll(async () => {
  await sandbox?.close();
});

/** A tool that waits until its signal aborts (or 20 s), and says what happened. */
function waitingTool() {
  const state = { started: 0, aborted: 0 };
  const tool = defineTool({
    name: 'wait',
    description: 'Waits until cancelled.',
    parameters: { tag: { type: 'string', required: true } },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    execute: ({ tag }, exec) =>
      new Promise<string>((resolve) => {
        state.started += 1;
        const timer = setTimeout(() => resolve(`done ${tag}`), 20_000);
        exec.signal.addEventListener('abort', () => {
          state.aborted += 1;
          clearTimeout(timer);
          resolve(`aborted ${tag}`);
        });
      }),
  });
  return { tool, state };
}

async function start(
  maxActiveRuns = 1,
): Promise<{ server: McpHttpServer; state: { started: number; aborted: number } }> {
  sandbox ??= createSandbox();
  const rt = createToolRuntime({ mode: 'ptc', sandbox, maxActiveRuns });
  const { tool, state } = waitingTool();
  rt.register(tool);
  const server = await serveMcpHttp(rt, { token: TOKEN });
  open.push(async () => {
    await server.close();
    await rt.close();
  });
  return { server, state };
}

async function client(server: McpHttpServer): Promise<Client> {
  const c = new Client({ name: 'cancel-test', version: '1' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  open.push(() => c.close());
  return c;
}

const run = (tag: string) => ({
  name: 'run_code',
  arguments: { description: 'wait', code: `return await tools.wait({ tag: ${JSON.stringify(tag)} });` },
});

// Generous: the first run starts a sandbox process (seconds on a loaded machine).
async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The body saw its abort a moment before the run gives back its slot: call a trivial
 * program until it is admitted (maxActiveRuns 1), so a busy answer never stands in for
 * the behaviour under test. Never admitted within the deadline = the slot leaked. */
async function untilSlotFree(c: Client, ms = 20_000): Promise<unknown> {
  const end = Date.now() + ms;
  for (;;) {
    const result = await c.callTool(
      { name: 'run_code', arguments: { description: 'x', code: 'return 7;' } },
      undefined,
      {
        timeout: 10_000,
      },
    );
    if (!JSON.stringify(result).includes('busy')) return result;
    if (Date.now() > end) throw new Error("timed out waiting for the cancelled run's slot");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('cancel over Streamable HTTP (official TS client)', () => {
  it("the client's AbortSignal aborts the body and frees the run's slot", async () => {
    const { server, state } = await start();
    const c = await client(server);
    const abort = new AbortController();
    const call = c.callTool(run('a'), undefined, { signal: abort.signal });
    await until(() => state.started === 1);
    abort.abort('user pressed stop');
    await expect(call).rejects.toThrow();
    await until(() => state.aborted === 1);
    // maxActiveRuns is 1: the next run only starts if the first one's slot was freed.
    await expect(untilSlotFree(c)).resolves.toMatchObject({ isError: false, structuredContent: { result: 7 } });
  }, 30_000);

  it("the client's request timeout cancels the run the same way", async () => {
    const { server, state } = await start();
    const c = await client(server);
    // The same program once first (cancelled): the timed call finds its sandbox process up
    // and its program compiled, so its body starts well inside the timeout even under load.
    const warm = new AbortController();
    const warming = c.callTool(run('t'), undefined, { signal: warm.signal });
    await until(() => state.started === 1);
    warm.abort();
    await expect(warming).rejects.toThrow();
    await until(() => state.aborted === 1);
    await untilSlotFree(c);
    await expect(c.callTool(run('t'), undefined, { timeout: 3_000 })).rejects.toThrow(/timed out/i);
    await until(() => state.aborted === 2);
    expect(state.started).toBe(2);
  }, 30_000);

  it("one client's cancel never reaches another client's call with the same request id", async () => {
    const { server, state } = await start(2);
    const a = await client(server);
    const b = await client(server);
    const callB = b.callTool(run('b'), undefined, { timeout: 15_000 });
    await until(() => state.started === 1);
    // a's call has the same JSON-RPC id as b's (each client counts from the start).
    const abortA = new AbortController();
    const callA = a.callTool(run('a'), undefined, { signal: abortA.signal });
    await until(() => state.started === 2);
    abortA.abort();
    await expect(callA).rejects.toThrow();
    await until(() => state.aborted === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(state.aborted).toBe(1);
    void callB.catch(() => {});
  }, 30_000);
});
