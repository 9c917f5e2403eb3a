// `serveMcpHttp` as the MCP conformance suite expects it, checked over raw HTTP and with
// the official client: SSE responses are primed (event id, `retry`) and resumable with
// `GET` + `Last-Event-ID` while the call runs (within bounds); a broken stream that is
// never resumed cancels its call; the server's own loopback Origin is accepted; and
// `logging/setLevel` chooses which run messages (`notifications/message`) a client gets.
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  LoggingMessageNotificationSchema,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { createSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import { createToolRuntime, defineTool } from '../../src/index.ts';
import { serveMcpHttp, type McpHttpServer, type ServeMcpHttpOptions } from '../../src/mcp/index.ts';
import { gatedDoubler } from '../support/gated-tool.ts';
import tools from './fixtures/tools.ts';

const TOKEN = 'resume-test-token-0123456789';
let sandbox: Sandbox | undefined;
const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});
afterAll(async () => {
  await sandbox?.close();
});

/** The tool `wait`: resolves when released, or reports that its signal aborted. */
function abortableWait() {
  const state = { started: 0, aborted: 0 };
  let release: (() => void) | undefined;
  const tool = defineTool({
    name: 'wait',
    description: 'Waits until released or cancelled.',
    parameters: {},
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    execute: (_args, exec) =>
      new Promise<string>((resolve) => {
        state.started += 1;
        release = () => resolve('released');
        exec.signal.addEventListener('abort', () => {
          state.aborted += 1;
          resolve('aborted');
        });
      }),
  });
  return { tool, state, release: () => release?.() };
}

async function start(options: Partial<ServeMcpHttpOptions> = {}) {
  sandbox ??= createSandbox();
  const rt = createToolRuntime({ mode: 'ptc', sandbox });
  for (const t of tools) rt.register(t);
  const gated = gatedDoubler();
  rt.register(gated.tool);
  const waiting = abortableWait();
  rt.register(waiting.tool);
  const server = await serveMcpHttp(rt, { token: TOKEN, ...options });
  open.push(async () => {
    await server.close();
    await rt.close();
  });
  return { server, gated, waiting };
}

// Generous: the first run starts a sandbox process (seconds on a loaded machine).
async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** Reads SSE events from a fetch body as they come; `next()` waits for the next one (undefined at the end). */
function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return {
    async next(): Promise<SseEvent | undefined> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = { data: '' };
          for (const line of block.split('\n')) {
            const [field, ...rest] = line.split(':');
            const value = rest.join(':').replace(/^ /u, '');
            if (field === 'id') event.id = value;
            else if (field === 'retry') event.retry = Number(value);
            else if (field === 'data') event.data += value;
          }
          if (block.startsWith(':')) continue; // keep-alive comment
          return event;
        }
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += value;
      }
    },
    cancel: () => reader.cancel(),
  };
}

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${TOKEN}`,
  'mcp-protocol-version': '2025-11-25',
};

const runCode = (code: string, id = 7) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'run_code', arguments: { description: 'test', code }, _meta: { progressToken: 'p' } },
  });

describe('resumable SSE responses', () => {
  it('primes the stream (id, retry), and a client whose stream broke resumes with Last-Event-ID and gets the rest', async () => {
    const { server, gated } = await start({ sseResume: { retryMs: 750 } });
    const abort = new AbortController();
    const post = await fetch(server.url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': 'client-a' },
      body: runCode(`console.log('before'); const v = await tools.slow({ n: 4 }); console.log('after'); return v;`),
      signal: abort.signal,
    });
    expect(post.headers.get('content-type')).toBe('text/event-stream');
    const first = sseReader(post.body!);
    const priming = await first.next();
    expect(priming).toMatchObject({ data: '', retry: 750 });
    expect(priming?.id).toMatch(/^[0-9a-f-]{36}\.0$/u);
    // Read until the slow call has started, then drop the connection.
    let last = priming!.id!;
    const seen: string[] = [];
    for (;;) {
      const event = (await first.next())!;
      last = event.id!;
      seen.push(JSON.parse(event.data).params.message);
      if (gated.started() === 1 && seen.some((m) => m.startsWith('call 1 slow started'))) break;
    }
    abort.abort();
    // A resume from another cancel scope, or of an unknown event, is refused.
    const foreign = await fetch(server.url, {
      headers: { ...HEADERS, 'mcp-session-id': 'client-b', 'last-event-id': last },
    });
    expect(foreign.status).toBe(404);
    const unknown = await fetch(server.url, {
      headers: { ...HEADERS, 'mcp-session-id': 'client-a', 'last-event-id': `${crypto.randomUUID()}.0` },
    });
    expect([unknown.status, (await unknown.text()).includes('no stream to resume')]).toEqual([404, true]);

    const resumed = await fetch(server.url, {
      headers: { ...HEADERS, 'mcp-session-id': 'client-a', 'last-event-id': last },
    });
    expect(resumed.status).toBe(200);
    gated.open();
    const rest = sseReader(resumed.body!);
    const after: unknown[] = [];
    for (let event = await rest.next(); event !== undefined; event = await rest.next())
      after.push(JSON.parse(event.data));
    // Everything after the last event read, once: the call's end, the second line, the result.
    expect(after.slice(0, -1).map((m) => (m as { params: { message: string } }).params.message)).toEqual([
      'call 1 slow finished (calls: 1 started, 1 finished)',
      'after',
    ]);
    expect(after.at(-1)).toMatchObject({ id: 7, result: { isError: false, structuredContent: { result: 8 } } });
    expect(seen[0]).toBe('before');
  });

  it('cancels the call of a broken stream nobody resumes within the window', async () => {
    const { server, waiting } = await start({ sseResume: { windowMs: 300 } });
    const abort = new AbortController();
    const post = await fetch(server.url, {
      method: 'POST',
      headers: HEADERS,
      body: runCode('return await tools.wait({});'),
      signal: abort.signal,
    });
    expect((await sseReader(post.body!).next())?.retry).toBe(1_000);
    await until(() => waiting.state.started === 1, 'the tool to start');
    abort.abort();
    await until(() => waiting.state.aborted === 1, 'the unresumed call to be cancelled');
  });

  it('refuses a resume from before the events it keeps (410), and finished streams replay their response', async () => {
    const { server } = await start({ sseResume: { maxEventsPerStream: 3 } });
    const post = await fetch(server.url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': 's' },
      body: runCode(`for (let i = 0; i < 6; i++) console.log('line', i); return 1;`),
    });
    const events: SseEvent[] = [];
    const reader = sseReader(post.body!);
    for (let event = await reader.next(); event !== undefined; event = await reader.next()) events.push(event);
    expect(events).toHaveLength(8); // priming, six lines, the response
    const tooOld = await fetch(server.url, {
      headers: { ...HEADERS, 'mcp-session-id': 's', 'last-event-id': events[0]!.id! },
    });
    expect(tooOld.status).toBe(410);
    expect(await tooOld.text()).toMatch(/newest 3 events/u);
    const replay = await fetch(server.url, {
      headers: { ...HEADERS, 'mcp-session-id': 's', 'last-event-id': events[5]!.id! },
    });
    expect(replay.status).toBe(200);
    const replayed = await replay.text();
    expect(replayed).toContain('line 5');
    expect(replayed).toContain('"structuredContent":{"logs"');
    expect(replayed).not.toContain('"message":"line 4"');
  });

  it('the official client resumes a stream the connection dropped, and the call answers', async () => {
    // A long window: on a loaded machine the client's reconnection can come seconds after
    // the break, and a call given up meanwhile would leave nothing to resume.
    const { server, gated } = await start({ sseResume: { windowMs: 60_000 } });
    // A client transport whose fetch breaks the first tools/call stream once the call is running.
    let broke = false;
    let cutDone = false;
    const resumes: string[] = [];
    const breaking = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const response = await fetch(url, init);
      const resumedFrom = new Headers(init?.headers).get('last-event-id');
      if (resumedFrom !== null) resumes.push(resumedFrom);
      const isCall = typeof init?.body === 'string' && init.body.includes('"tools/call"');
      if (!isCall || broke || response.body === null) return response;
      broke = true;
      const reader = response.body.getReader();
      const started = until(() => gated.started() === 1, 'the tool to start').then(() => 'cut' as const);
      // Cut only after the first chunk (the priming event, with the id to resume from) went
      // through: cut before it, on a loaded machine, the client had nothing to resume from.
      let primed = false;
      const cut = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = primed ? await Promise.race([reader.read(), started]) : await reader.read();
          primed = true;
          if (next === 'cut') {
            await reader.cancel();
            controller.error(new TypeError('network connection lost'));
            cutDone = true;
          } else if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
      });
      return new Response(cut, { status: response.status, headers: response.headers });
    };
    const client = new Client({ name: 'resume', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        fetch: breaking,
        reconnectionOptions: {
          initialReconnectionDelay: 50,
          maxReconnectionDelay: 500,
          reconnectionDelayGrowFactor: 1.5,
          maxRetries: 20,
        },
      }),
    );
    open.push(() => client.close());
    const call = client.callTool({
      name: 'run_code',
      arguments: { description: 'x', code: 'console.log("a"); return await tools.slow({ n: 21 });' },
    }) as Promise<CallToolResult>;
    await until(() => cutDone && gated.started() === 1, 'the call to start and its stream to break');
    gated.open();
    let settled = false;
    const markSettled = (): void => {
      settled = true;
    };
    call.then(markSettled, markSettled);
    await until(
      () => settled,
      `the call's answer over the resumed stream (resumed from: ${JSON.stringify(resumes)})`,
      40_000,
    );
    expect((await call).structuredContent).toEqual({ logs: ['a'], result: 42 });
    expect(resumes).toEqual([expect.stringMatching(/^[0-9a-f-]{36}\.\d+$/u)]);
  }, 120_000);
});

describe('Origin', () => {
  it("accepts the server's own loopback origin, refuses another port or name", async () => {
    const { server } = await start();
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const status = async (origin: string): Promise<number> =>
      (await fetch(server.url, { method: 'POST', headers: { ...HEADERS, origin }, body: list })).status;
    expect(await status(`http://127.0.0.1:${server.port}`)).toBe(200);
    expect(await status(`http://localhost:${server.port}`)).toBe(200);
    expect(await status(`http://127.0.0.1:${server.port + 1}`)).toBe(403);
    expect(await status(`https://127.0.0.1:${server.port}`)).toBe(403);
    expect(await status(`http://evil.example:${server.port}`)).toBe(403);
  });
});

describe('logging/setLevel', () => {
  async function client(
    server: McpHttpServer,
  ): Promise<{ c: Client; messages: LoggingMessageNotification['params'][] }> {
    const c = new Client({ name: 'log', version: '1' });
    const messages: LoggingMessageNotification['params'][] = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      messages.push(n.params);
    });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    open.push(() => c.close());
    return { c, messages };
  }
  const program = {
    name: 'run_code',
    arguments: {
      description: 'log',
      code: `console.log('hello'); await tools.add({ a: 1, b: 2 }); try { await tools.explode({}); } catch {} return 1;`,
    },
  };

  it('declares logging; without a level no messages, with one the run messages at that level and above', async () => {
    const { server } = await start();
    const { c, messages } = await client(server);
    expect(c.getServerCapabilities()?.logging).toEqual({});
    await c.callTool(program);
    expect(messages).toEqual([]);

    await c.setLoggingLevel('debug');
    await c.callTool(program);
    await until(() => messages.length === 5, 'five messages');
    expect(messages.map((m) => [m.level, m.logger, m.data])).toEqual([
      ['info', 'run_code', 'hello'],
      ['debug', 'run_code', 'call 1 add started'],
      ['debug', 'run_code', 'call 1 add finished'],
      ['debug', 'run_code', 'call 2 explode started'],
      ['warning', 'run_code', expect.stringMatching(/^call 2 explode failed: \w+: .*kaboom/u)],
    ]);

    messages.length = 0;
    await c.setLoggingLevel('warning');
    await c.callTool(program);
    await until(() => messages.length === 1, 'one message');
    expect(messages[0]).toMatchObject({ level: 'warning', data: expect.stringMatching(/explode failed/u) });
  });

  it('keeps a level per client (Mcp-Session-Id): another client gets none', async () => {
    const { server } = await start();
    const a = await client(server);
    const b = await client(server);
    await a.c.setLoggingLevel('info');
    await b.c.callTool(program);
    await a.c.callTool(program);
    await until(() => a.messages.length === 2, "a's messages");
    expect(a.messages.map((m) => m.level)).toEqual(['info', 'warning']);
    expect(b.messages).toEqual([]);
  });
});
