// What the official Python MCP client (mcp 2.3.0) sends when it cancels a call over
// Streamable HTTP, replayed with plain fetch against a real `ptc serve --http` child, so
// the suite covers that client without installing it (the manual check that recorded the
// wire, test/clients/python-mcp-cancel.py, needs PyPI). Recorded:
//   - `initialize` without a session id; every later request echoes the `Mcp-Session-Id`
//     the server answered and sends `mcp-protocol-version: 2025-11-25`;
//   - a GET for the server's stream (405 here: stateless) and a DELETE at exit (405);
//   - a cancel — a request timeout (`read_timeout_seconds`, reason "timed out after 3.0s")
//     or an anyio cancel scope (reason "caller cancelled") — is a POST of its own,
//     `notifications/cancelled` with the request id, answered 202; about 50 ms later the
//     client closes the connection of the call it gave up.
// The notification alone must abort the body (a client may keep the connection), and the
// run's slot must be free at once after it (`--max-active-runs 1`).
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawnServe } from './helpers.ts';

const TOKEN = 'python-wire-token-0123456789';
const PROTOCOL = '2025-11-25';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Served {
  readonly url: string;
  readonly stderr: () => string;
}

async function serve(): Promise<Served> {
  return spawnServe(
    cleanups,
    ['--mode', 'ptc', '--max-active-runs', '1', '--tools', 'test/clients/fixtures/slow-tools.ts'],
    {
      PTC_SERVE_TOKEN: TOKEN,
    },
  );
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The Python client's headers (its httpx client sets content-type on every request). */
function headers(session: string | undefined): Record<string, string> {
  return {
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${TOKEN}`,
    'content-type': 'application/json',
    ...(session === undefined ? {} : { 'mcp-protocol-version': PROTOCOL, 'mcp-session-id': session }),
  };
}

const post = (url: string, session: string | undefined, body: unknown, signal?: AbortSignal): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: headers(session),
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });

/** The JSON-RPC messages of an SSE (or JSON) answer. */
async function messages(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').includes('application/json'))
    return [JSON.parse(text) as Record<string, unknown>];
  return (
    text
      .split('\n')
      // Without the priming event's empty data (SSE resumability), which the client skips.
      .filter((line) => line.startsWith('data: ') && line.length > 'data: '.length)
      .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>)
  );
}

/** initialize, notifications/initialized and the GET stream attempt, as the Python client does them. */
async function handshake(url: string): Promise<string> {
  const init = await post(url, undefined, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'mcp', version: '0.1.0' } },
  });
  expect(init.status).toBe(200);
  const session = init.headers.get('mcp-session-id');
  expect(session).toEqual(expect.any(String));
  const [answer] = await messages(init);
  expect(answer).toMatchObject({ id: 1, result: { serverInfo: expect.any(Object) } });
  const [initialized, stream] = await Promise.all([
    post(url, session!, { jsonrpc: '2.0', method: 'notifications/initialized' }),
    fetch(url, { method: 'GET', headers: headers(session!) }),
  ]);
  expect(initialized.status).toBe(202);
  expect(stream.status).toBe(405);
  await Promise.all([initialized.arrayBuffer(), stream.arrayBuffer()]);
  return session!;
}

const runCode = (id: number, code: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'run_code', arguments: { description: 'wait', code } },
});
const slow = (id: number, tag: string) => runCode(id, `return await tools.slow({ tag: ${JSON.stringify(tag)} });`);

/**
 * The next run gets the only run slot: at once, or after the cancelled run has unwound
 * (its slot is freed when the run ends, a few ms after the body's abort; a run that finds
 * it taken is refused as busy, so it is retried for up to 5 s — the body alone would hold
 * the slot for 20 s).
 */
async function expectSlotFree(url: string, session: string, id: number): Promise<void> {
  const end = Date.now() + 5_000;
  for (let attempt = id * 100; ; attempt += 1) {
    const next = await post(url, session, runCode(attempt, 'return 7;'), AbortSignal.timeout(10_000));
    expect(next.status).toBe(200);
    const answer = (await messages(next)).at(-1) as { result?: { isError?: boolean; content?: unknown } };
    const busy = answer.result?.isError === true && JSON.stringify(answer.result.content).includes('busy');
    if (!busy || Date.now() > end) {
      expect(answer).toMatchObject({ id: attempt, result: { isError: false, structuredContent: { result: 7 } } });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the Python MCP client's cancel, replayed on the wire", () => {
  it('notifications/cancelled in its own POST (a request timeout) aborts the body while the call stays connected', async () => {
    const { url, stderr } = await serve();
    const session = await handshake(url);
    const call = await post(url, session, slow(4, 'timeout'));
    expect(call.status).toBe(200);
    await until(() => stderr().includes('slow: started timeout'), 'the body to start');
    const cancel = await post(url, session, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 4, reason: 'timed out after 3.0s' },
    });
    expect(cancel.status).toBe(202);
    await cancel.arrayBuffer();
    // The call's connection is still open: only the notification can have aborted the body.
    await until(() => stderr().includes('slow: aborted timeout'), 'the body to be aborted');
    await expectSlotFree(url, session, 5);
    // The cancelled call's stream still ends with the aborted run's outcome (the client,
    // which has stopped listening for id 4, discards it), and then closes.
    const answers = await messages(call);
    expect(answers.at(-1)).toMatchObject({
      id: 4,
      result: { isError: true, _meta: { 'ptc-runtime/error': { code: 'CODE_RUN_FAILED' } } },
    });
  }, 60_000);

  it('the whole sequence of a cancel scope: the notification, then the call connection closed, then DELETE at exit', async () => {
    const { url, stderr } = await serve();
    const session = await handshake(url);
    const abandon = new AbortController();
    const call = await post(url, session, slow(6, 'scope'), abandon.signal);
    expect(call.status).toBe(200);
    await until(() => stderr().includes('slow: started scope'), 'the body to start');
    const cancel = await post(url, session, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 6, reason: 'caller cancelled' },
    });
    expect(cancel.status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 50));
    abandon.abort();
    await until(() => stderr().includes('slow: aborted scope'), 'the body to be aborted');
    expect(stderr().match(/slow: aborted scope/g)).toHaveLength(1);
    await expectSlotFree(url, session, 7);
    const end = await fetch(url, { method: 'DELETE', headers: headers(session) });
    expect(end.status).toBe(405);
  }, 60_000);

  it("a cancel that names another session's request id aborts nothing", async () => {
    const { url, stderr } = await serve();
    const session = await handshake(url);
    const other = await handshake(url);
    expect(other).not.toBe(session);
    const abandon = new AbortController();
    const call = await post(url, session, slow(4, 'kept'), abandon.signal);
    expect(call.status).toBe(200);
    await until(() => stderr().includes('slow: started kept'), 'the body to start');
    const cancel = await post(url, other, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 4, reason: 'caller cancelled' },
    });
    expect(cancel.status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(stderr()).not.toContain('slow: aborted kept');
    abandon.abort();
    // Once the 5 s the server waits for the client to resume its stream are over.
    await until(
      () => stderr().includes('slow: aborted kept'),
      'the body to be aborted by the closed connection',
      30_000,
    );
  }, 60_000);
});
