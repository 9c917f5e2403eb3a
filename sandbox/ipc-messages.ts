// Messages between the host and the sandbox child process (Node IPC, JSON serialization).
// Every run-scoped message carries its runId. The host checks what the child sends:
// a child is trusted less than the host.
import type { CompiledProgram } from './compiled-program.ts';
import { isRawRunOutcome, type RawRunOutcome } from './run-outcome.ts';
import type { FailureKind, HostCallOutcome, ProgramState, RunDeterminism, SandboxLimits } from './types.ts';

/** argv[2] of the child, as JSON. */
export interface ChildConfig {
  readonly poolSize: number;
  readonly memoryMb: number;
  /** See SandboxOptions.blockingCalls. */
  readonly blockingCalls: boolean;
  /** This process's share of SandboxOptions.memoryBudgetBytes: its pool fills within it. */
  readonly fillBudgetBytes?: number;
}

export type HostToChild =
  | {
      readonly type: 'run';
      readonly runId: number;
      /** The program without its source map: the host keeps that and locates errors itself. */
      readonly program: Omit<CompiledProgram, 'sourceMap'>;
      readonly toolNames: readonly string[];
      readonly limits: SandboxLimits;
      readonly determinism: RunDeterminism;
      /** Sessions: the program's `state` global. */
      readonly state?: ProgramState;
    }
  | { readonly type: 'call-result'; readonly runId: number; readonly seq: number; readonly outcome: HostCallOutcome }
  /** Outcomes that settled in one event-loop turn, in one message. */
  | { readonly type: 'call-results'; readonly results: readonly CallResultItem[] }
  | { readonly type: 'cancel'; readonly runId: number; readonly kind: FailureKind; readonly message: string }
  | { readonly type: 'close' }
  /** Liveness check; the child answers `pong`. */
  | { readonly type: 'ping' }
  /** The host gives this process no new runs: lower its isolate threads' priority (cpu-lanes.ts). */
  | { readonly type: 'demote' }
  /** No ordinary run is in flight any more: give the demoted threads their priority back (cpu-lanes.ts). */
  | { readonly type: 'restore' };

export interface CallResultItem {
  readonly runId: number;
  readonly seq: number;
  readonly outcome: HostCallOutcome;
}

export interface CallItem {
  readonly runId: number;
  readonly seq: number;
  readonly toolName: string;
  readonly argsJson: string;
}

export type ChildToHost =
  | { readonly type: 'ready'; readonly pid: number; readonly rss?: number }
  /** `rss`: the process's resident memory in bytes less its ready isolates (for admission by memory). */
  | { readonly type: 'pong'; readonly rss?: number }
  /** The same figure, sent while runs are in flight when it has moved (sandbox-process.ts). */
  | { readonly type: 'memory'; readonly rss: number }
  | {
      readonly type: 'call';
      readonly runId: number;
      readonly seq: number;
      readonly toolName: string;
      readonly argsJson: string;
    }
  /** Calls (of any runs) made in one stretch, in order, in one message. */
  | { readonly type: 'calls'; readonly calls: readonly CallItem[] }
  /** The run is over in the child with calls still out: abort them, refuse new ones (with none out, 'done' says it all). */
  | { readonly type: 'calls-closed'; readonly runId: number }
  /** The program aborted its call `seq` (`tools.x(args, { signal })`): abort it on the host. */
  | { readonly type: 'cancel-call'; readonly runId: number; readonly seq: number }
  | { readonly type: 'log'; readonly runId: number; readonly text: string }
  | { readonly type: 'logs-truncated'; readonly runId: number; readonly by: 'bytes' | 'lines' }
  | { readonly type: 'done'; readonly runId: number; readonly outcome: RawRunOutcome; readonly rss?: number }
  /** The run has used more than HEAVY_CPU_MS of CPU (cpu-lanes.ts). */
  | { readonly type: 'heavy'; readonly runId: number }
  /** isolated-vm parked a thread for good: replace this process once its runs end. */
  | { readonly type: 'retire'; readonly reason: string };

/**
 * A ChildToHost message as it crosses: every one carries how many of the host's messages
 * the process had handled when it sent it, so when the process dies the host knows which
 * answers it never handled (process-sandbox.ts, `#wasWaiting`).
 */
export type ChildToHostOnWire = ChildToHost & { readonly heard: number };

/** The `heard` count a message from the process carries, if it is a well-formed one. */
export function heardCount(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const heard = (value as Record<string, unknown>)['heard'];
  return typeof heard === 'number' && Number.isSafeInteger(heard) && heard >= 0 ? heard : undefined;
}

/** The message if it is a well-formed ChildToHost, else undefined. */
export function parseChildMessage(value: unknown): ChildToHost | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const m = value as Record<string, unknown>;
  const runIdOk = typeof m['runId'] === 'number';
  switch (m['type']) {
    case 'ready':
      return typeof m['pid'] === 'number' ? (value as ChildToHost) : undefined;
    case 'call':
      return runIdOk &&
        typeof m['seq'] === 'number' &&
        typeof m['toolName'] === 'string' &&
        typeof m['argsJson'] === 'string'
        ? (value as ChildToHost)
        : undefined;
    case 'calls':
      return Array.isArray(m['calls']) && (m['calls'] as unknown[]).every(isCallItem)
        ? (value as ChildToHost)
        : undefined;
    case 'calls-closed':
    case 'heavy':
      return runIdOk ? (value as ChildToHost) : undefined;
    case 'cancel-call':
      return runIdOk && typeof m['seq'] === 'number' ? (value as ChildToHost) : undefined;
    case 'logs-truncated':
      return runIdOk && (m['by'] === 'bytes' || m['by'] === 'lines') ? (value as ChildToHost) : undefined;
    case 'log':
      return runIdOk && typeof m['text'] === 'string' ? (value as ChildToHost) : undefined;
    case 'done':
      return runIdOk && isRawRunOutcome(m['outcome']) ? (value as ChildToHost) : undefined;
    case 'pong':
      return value as ChildToHost;
    case 'memory':
      return typeof m['rss'] === 'number' ? (value as ChildToHost) : undefined;
    case 'retire':
      return typeof m['reason'] === 'string' ? (value as ChildToHost) : undefined;
    default:
      return undefined;
  }
}

function isCallItem(value: unknown): value is CallItem {
  if (typeof value !== 'object' || value === null) return false;
  const item = value as Record<string, unknown>;
  return (
    typeof item['runId'] === 'number' &&
    typeof item['seq'] === 'number' &&
    typeof item['toolName'] === 'string' &&
    typeof item['argsJson'] === 'string'
  );
}
