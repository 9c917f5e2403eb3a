// The bounds of the MCP server's per-client state, each hit: log levels and client
// capabilities kept per Mcp-Session-Id, resumable SSE streams (streams kept, bytes per
// stream), questions waiting for an answer, and the rounds of questions one call may ask.
import { describe, expect, it } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { PausedRun, ToolResult, ToolRuntime } from '../../src/index.ts';
import {
  askApproval,
  clientCapabilitiesTable,
  MAX_ELICITATION_ROUNDS,
  resumeWhileDecided,
} from '../../src/mcp/elicit-approval.ts';
import { logLevelTable } from '../../src/mcp/run-log-messages.ts';
import { SseResumption } from '../../src/mcp/sse-resumption.ts';

const PAUSED: PausedRun = {
  runId: 'run-1',
  pending: [{ callId: 'c1', name: 'write', arguments: { v: 1 }, title: 'Write 1?' }],
  expiresAt: Date.now() + 60_000,
};
const pausedResult = (): ToolResult =>
  ({
    callId: 'x',
    name: 'run_code',
    isError: false,
    value: { logs: [], paused: PAUSED },
    content: [],
  }) as unknown as ToolResult;

/** A response stand-in that records what a resume writes. */
function recorder(): ServerResponse & { status: number; text: string } {
  const res = {
    status: 0,
    text: '',
    writeHead(status: number) {
      res.status = status;
      return res;
    },
    flushHeaders() {},
    write(chunk: string) {
      res.text += chunk;
      return true;
    },
    end() {},
    once() {
      return res;
    },
  };
  return res as unknown as ServerResponse & { status: number; text: string };
}

describe('per-client tables are bounded', () => {
  it('log levels: the least recently set scope is forgotten past the bound', () => {
    const table = logLevelTable(2);
    table.slot('a').set('info');
    table.slot('b').set('debug');
    table.slot('a').set('warning'); // a is now the most recent
    table.slot('c').set('error');
    expect([table.size, table.slot('a').get(), table.slot('b').get(), table.slot('c').get()]).toEqual([
      2,
      'warning',
      undefined,
      'error',
    ]);
  });

  it('client capabilities: the least recently initialized scope is forgotten past the bound', () => {
    const table = clientCapabilitiesTable(1);
    table.slot('a').set({ elicitation: {} });
    table.slot('b').set({});
    expect([table.slot('a').get(), table.slot('b').get()]).toEqual([undefined, {}]);
  });
});

describe('resumable SSE streams are bounded', () => {
  const message = (i: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { i } });

  it('keeps at most maxStreams streams, forgetting finished ones first', async () => {
    const store = new SseResumption({ maxStreams: 2 });
    const a = store.eventStoreFor('s');
    const b = store.eventStoreFor('s');
    const c = store.eventStoreFor('s');
    const aId = await a.storeEvent('aaaa', {} as JSONRPCMessage);
    await a.storeEvent('aaaa', { jsonrpc: '2.0', id: 1, result: {} });
    const bId = await b.storeEvent('bbbb', {} as JSONRPCMessage);
    await c.storeEvent('cccc', {} as JSONRPCMessage);
    expect(store.size).toBe(2);
    // a (finished) went first; b, still in flight, is kept.
    expect(store.resume(aId, 's', recorder())?.status).toBe(404);
    const res = recorder();
    expect(store.resume(bId, 's', res)).toBeUndefined();
    expect(res.status).toBe(200);
  });

  it('keeps the newest maxBytesPerStream bytes of a stream; a resume from before them is refused (410)', async () => {
    const store = new SseResumption({ maxBytesPerStream: 400 });
    const events = store.eventStoreFor('s');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await events.storeEvent('ssss', message(i)));
    const tooOld = store.resume(ids[0]!, 's', recorder());
    expect(tooOld).toMatchObject({ status: 410, message: expect.stringContaining('400 bytes') });
    const res = recorder();
    expect(store.resume(ids[17]!, 's', res)).toBeUndefined();
    expect(res.text.match(/^id: /gmu)).toHaveLength(2);
  });

  it('refuses settings that are not positive integers', () => {
    expect(() => new SseResumption({ windowMs: 0 })).toThrow(/sseResume.windowMs must be a positive integer, got 0/u);
  });
});

describe('questions are bounded', () => {
  it('past maxPending questions waiting, a paused run is not asked about (nothing is sent)', async () => {
    const sent: JSONRPCMessage[] = [];
    const send = async (m: JSONRPCMessage): Promise<void> => void sent.push(m);
    const options = { scope: 's', timeoutMs: 50, signal: new AbortController().signal };
    expect(await askApproval(send, PAUSED, { ...options, maxPending: 0 })).toBeUndefined();
    expect(sent).toEqual([]);
    // Within the bound it asks (and, unanswered, gives up after timeoutMs).
    expect(await askApproval(send, PAUSED, options)).toBeUndefined();
    expect(sent).toHaveLength(1);
  });

  it('one call asks at most MAX_ELICITATION_ROUNDS times, then answers paused', async () => {
    let resumes = 0;
    const rt = {
      resume: async () => {
        resumes += 1;
        return pausedResult();
      },
    } as unknown as ToolRuntime;
    let asked = 0;
    const result = await resumeWhileDecided(
      rt,
      pausedResult(),
      async () => {
        asked += 1;
        return { c1: 'approve' };
      },
      {},
    );
    expect([asked, resumes]).toEqual([MAX_ELICITATION_ROUNDS, MAX_ELICITATION_ROUNDS]);
    expect((result.value as unknown as { paused: PausedRun }).paused.runId).toBe('run-1');
  });
});
