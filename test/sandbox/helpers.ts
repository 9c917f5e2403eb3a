// Shared tooling for the sandbox tests: a fake host that records calls and concurrency,
// and small assertions on run outcomes.
import { expect } from '@jest/globals';
import type { FailureKind, HostCallOutcome, HostCallRequest, JsonValue, RunOutcome } from '../../sandbox/types.ts';
import { gate } from '../support/gate.ts';

export interface FakeHost {
  readonly hostCall: (request: HostCallRequest) => Promise<HostCallOutcome>;
  readonly calls: HostCallRequest[];
  readonly settled: number[];
  readonly aborted: number[];
  inFlight: number;
  maxInFlight: number;
}

export type ToolImpl = (request: HostCallRequest) => Promise<HostCallOutcome> | HostCallOutcome;

export const ok = (value: JsonValue): HostCallOutcome => ({ ok: true, valueJson: JSON.stringify(value) });

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when the signal aborts (never rejects). */
export const untilAborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

/** Records every call; by default each tool echoes its name, seq and arguments. */
export function fakeHost(impl?: ToolImpl): FakeHost {
  const host: FakeHost = {
    calls: [],
    settled: [],
    aborted: [],
    inFlight: 0,
    maxInFlight: 0,
    hostCall: async (request) => {
      host.calls.push(request);
      host.inFlight++;
      host.maxInFlight = Math.max(host.maxInFlight, host.inFlight);
      request.signal.addEventListener('abort', () => host.aborted.push(request.seq), { once: true });
      try {
        return impl
          ? await impl(request)
          : ok({ tool: request.toolName, seq: request.seq, args: JSON.parse(request.argsJson) as JsonValue });
      } finally {
        host.inFlight--;
        host.settled.push(request.seq);
      }
    },
  };
  return host;
}

/** A host whose every call answers `value` once the test calls `open()`. */
export function gatedHost(value: JsonValue): { host: FakeHost; open: () => void } {
  const { passed, open } = gate();
  const host = fakeHost(async () => {
    await passed;
    return ok(value);
  });
  return { host, open };
}

export function expectOk(outcome: RunOutcome, result?: JsonValue): void {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.kind}: ${outcome.message}`);
  if (result !== undefined) expect(outcome.result).toStrictEqual(result);
}

export function expectKind(outcome: RunOutcome, kind: FailureKind, message?: RegExp): void {
  if (outcome.ok)
    throw new Error(`expected failure ${kind}, got success: ${JSON.stringify(outcome.result)?.slice(0, 200)}`);
  expect([outcome.kind, outcome.message]).toStrictEqual([kind, expect.any(String)]);
  if (message) expect(outcome.message).toMatch(message);
}
