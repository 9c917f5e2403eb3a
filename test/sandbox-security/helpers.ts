// Shared tooling for the hostile-program suite: a recording fake host, outcome
// assertions, host-path leak detection and RSS measurement of sandbox processes.
import { readdirSync, readFileSync } from 'node:fs';
import { runInThisContext } from 'node:vm';
import { expect, it } from '@jest/globals';
import type {
  FailureKind,
  HostCall,
  HostCallOutcome,
  HostCallRequest,
  JsonValue,
  RunOutcome,
  Sandbox,
  SandboxLimits,
} from '../../sandbox/types.ts';

export type HostImpl = (request: HostCallRequest) => Promise<HostCallOutcome> | HostCallOutcome;

export interface Recorder {
  readonly hostCall: HostCall;
  /** Every request the host received, in arrival order. */
  readonly calls: HostCallRequest[];
  /** Contract breaches seen by the host (non-JSON args, unknown tool names). */
  readonly violations: string[];
  inFlight: number;
  maxInFlight: number;
}

export const okJson = (value: JsonValue): HostCallOutcome => ({ ok: true, valueJson: JSON.stringify(value) });

/** A fake host that records calls, counts concurrency and checks the bridge contract. */
export function recordingHost(toolNames: readonly string[], impl?: HostImpl): Recorder {
  const rec: Recorder = {
    calls: [],
    violations: [],
    inFlight: 0,
    maxInFlight: 0,
    hostCall: (request) => {
      rec.calls.push(request);
      if (typeof request.argsJson !== 'string') {
        rec.violations.push(`argsJson is ${typeof request.argsJson}, not string`);
      } else {
        try {
          JSON.parse(request.argsJson);
        } catch {
          rec.violations.push(`argsJson is not JSON: ${request.argsJson.slice(0, 80)}`);
        }
      }
      if (!toolNames.includes(request.toolName)) {
        rec.violations.push(`call to a tool that is not bound: ${String(request.toolName)}`);
      }
      rec.inFlight += 1;
      rec.maxInFlight = Math.max(rec.maxInFlight, rec.inFlight);
      const done = (): void => {
        rec.inFlight -= 1;
      };
      // impl may throw synchronously on purpose: count it as settled and rethrow.
      let result: Promise<HostCallOutcome> | HostCallOutcome;
      try {
        result = impl ? impl(request) : okJson({ v: 1 });
      } catch (error) {
        done();
        throw error;
      }
      const promise = Promise.resolve(result);
      promise.then(done, done);
      return promise;
    },
  };
  return rec;
}

export function expectResult(outcome: RunOutcome, value: JsonValue | undefined): void {
  if (!outcome.ok) {
    throw new Error(`expected success ${JSON.stringify(value)}, got ${outcome.kind}: ${outcome.message}`);
  }
  expect(outcome.result).toStrictEqual(value);
}

export function expectFailure(outcome: RunOutcome, kinds: readonly FailureKind[], message?: RegExp): void {
  if (outcome.ok) {
    throw new Error(
      `expected failure ${kinds.join('|')}, got success: ${JSON.stringify(outcome.result)?.slice(0, 300)}`,
    );
  }
  if (!kinds.includes(outcome.kind)) {
    throw new Error(`expected kind ${kinds.join('|')}, got ${outcome.kind}: ${outcome.message.slice(0, 500)}`);
  }
  if (message) expect(outcome.message).toMatch(message);
}

/** Strings that would betray the host: its file paths, Node internals, modules. */
export const HOST_LEAK_PATTERNS: readonly RegExp[] = [
  /\/work\//,
  /node:internal/,
  /node_modules/,
  /file:\/\//,
  /\bat (?:async )?\S+ \(\/[^)]*\)/, // a V8 frame with an absolute host path
];

export function expectNoHostLeak(value: unknown): void {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  const cwd = process.cwd();
  for (const pattern of HOST_LEAK_PATTERNS) {
    if (pattern.test(text)) throw new Error(`host detail leaked (${String(pattern)}): ${excerpt(text, pattern)}`);
  }
  if (cwd.length > 1 && text.includes(cwd)) throw new Error(`host cwd leaked: ${excerpt(text, cwd)}`);
}

function excerpt(text: string, pattern: RegExp | string): string {
  const index = typeof pattern === 'string' ? text.indexOf(pattern) : text.search(pattern);
  return text.slice(Math.max(0, index - 80), index + 120);
}

/** After every hostile program, the same sandbox must still run a trivial program. */
export async function expectHealthy(sandbox: Sandbox): Promise<void> {
  const rec = recordingHost([]);
  const outcome = await sandbox.run({ code: 'return 1 + 1', toolNames: [], hostCall: rec.hostCall });
  expectResult(outcome, 2);
  expect(rec.calls).toHaveLength(0);
  // Nothing the guest did may have polluted the host realm.
  const probe: Record<string, unknown> = {};
  expect(probe['polluted']).toBeUndefined();
  expect(probe['pwned']).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toStrictEqual(OBJECT_PROTOTYPE_NAMES);
  // Jest runs tests in a vm context; IPC and isolated-vm copies are built in Node's main realm.
  expect(runInThisContext(MAIN_REALM_PROBE)).toStrictEqual(MAIN_REALM_BASELINE);
}

const OBJECT_PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();
const MAIN_REALM_PROBE =
  '[Object.getOwnPropertyNames(Object.prototype).sort().join(), Object.getOwnPropertyNames(Array.prototype).length, ({}).polluted, ({}).pwned]';
const MAIN_REALM_BASELINE: unknown = runInThisContext(MAIN_REALM_PROBE);

/** Resolves after `ms`, for hosts that hold a call open. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A promise that settles only when the request's signal aborts (then rejects). */
export function untilAborted(request: HostCallRequest): Promise<HostCallOutcome> {
  return new Promise((_, reject) => {
    if (request.signal.aborted) reject(new Error('aborted'));
    request.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
  });
}

export interface ProcMemory {
  rssKb: number;
  hwmKb: number;
}

export function readProcMemory(pid: number): ProcMemory | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string): number =>
      Number(/(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(name)) ?? '')?.[1] ?? 0);
    return { rssKb: field('VmRSS:'), hwmKb: field('VmHWM:') };
  } catch {
    return undefined;
  }
}

/** Memory of every live descendant of this process (the sandbox child lives there in process mode). */
export function descendantMemory(): Map<number, ProcMemory> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The comm field may contain spaces; ppid is the 2nd field after the closing paren.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // the process exited while we were listing
    }
  }
  const result = new Map<number, ProcMemory>();
  const frontier = [process.pid];
  while (frontier.length > 0) {
    const parent = frontier.pop();
    for (const [pid, ppid] of parents) {
      if (ppid !== parent || result.has(pid)) continue;
      const memory = readProcMemory(pid);
      if (memory) result.set(pid, memory);
      frontier.push(pid);
    }
  }
  return result;
}

/**
 * Peak growth in MiB of the host and of sandbox processes that existed before, between
 * `before` (current RSS) and now (high-water mark).
 */
export function peakGrowthMb(before: { host: number; children: Map<number, ProcMemory> }): {
  hostMb: number;
  childMb: number;
} {
  const after = descendantMemory();
  let childKb = 0;
  for (const [pid, memory] of before.children) {
    const now = after.get(pid);
    // A high-water mark that did not move means no new peak during the measured span.
    if (now && now.hwmKb > memory.hwmKb) childKb = Math.max(childKb, now.hwmKb - memory.rssKb);
  }
  return {
    hostMb: (process.memoryUsage().rss - before.host) / 2 ** 20,
    childMb: childKb / 1024,
  };
}

export function memorySnapshot(): { host: number; children: Map<number, ProcMemory> } {
  return { host: process.memoryUsage().rss, children: descendantMemory() };
}

export interface HostileCase {
  readonly name: string;
  /** The hostile program: the body of an async function. */
  readonly code: string;
  readonly toolNames?: readonly string[];
  readonly host?: HostImpl;
  readonly limits?: Partial<SandboxLimits>;
  /** Jest timeout for this case. */
  readonly timeoutMs?: number;
  readonly check: (outcome: RunOutcome, rec: Recorder) => void | Promise<void>;
}

/**
 * One jest test per case: run the program, check its exact outcome, then the shared
 * invariants (bridge contract kept, no host detail in the outcome, sandbox still healthy).
 */
export function runCases(sandboxOf: () => Sandbox, cases: readonly HostileCase[]): void {
  for (const hostile of cases) {
    it(
      hostile.name,
      async () => {
        const sandbox = sandboxOf();
        const toolNames = hostile.toolNames ?? ['a', 'fail', 'slow'];
        const rec = recordingHost(toolNames, hostile.host ?? defaultHost);
        const outcome = await sandbox.run({
          code: hostile.code,
          toolNames,
          hostCall: rec.hostCall,
          ...(hostile.limits ? { limits: hostile.limits } : {}),
        });
        await hostile.check(outcome, rec);
        expect(rec.violations).toStrictEqual([]);
        expectNoHostLeak(outcome);
        await expectHealthy(sandbox);
      },
      hostile.timeoutMs ?? 30_000,
    );
  }
}

/** `a` answers {v:1}, `fail` refuses with a ToolCallError, `slow` answers after 100 ms. */
export const defaultHost: HostImpl = async (request) => {
  if (request.toolName === 'fail') return { ok: false, code: 'NOPE', message: 'refused by host' };
  if (request.toolName === 'slow') await sleep(100);
  return okJson({ v: 1, list: [1, 2], nested: { s: 'x' } });
};

/** Pids of this process's live direct children (sandbox processes, re-run ones included). */
export function childProcesses(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 3 is the state (Z: exited, not yet reaped); field 4 the parent pid.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) === process.pid && state !== 'Z') pids.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return pids;
}
