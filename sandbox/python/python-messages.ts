// Messages between the host and a Python process (Node IPC, JSON serialization). A
// process holds one job at a time (a run or a type check), named by its jobId. The host
// checks what the process sends: a process running model-written code is trusted less
// than the host.
import type { FailureKind, GuestSuspension, HostCallOutcome, JsonValue } from '../types.ts';
import { FAILURE_KINDS } from '../run-outcome.ts';
import type { PythonFunction } from './python-run-request.ts';
import type { PythonTypeCheck } from './python-type-check.ts';

/** The limits a Python process applies to one run (the host keeps the wall clock). */
export interface PythonProcessLimits {
  readonly cpuTimeMs: number;
  readonly memoryMb: number;
  /** Monty's count of heap allocations; absent: not bounded. */
  readonly maxAllocations?: number;
  readonly maxCalls: number;
  readonly maxResultBytes: number;
  readonly maxLogBytes: number;
  readonly maxLogLines: number;
  /** Bytes of a paused program's saved state the process sends (PythonSandboxOptions.maxMessageBytes). */
  readonly maxStateBytes: number;
  /** A program waiting on a call whose saved state is at most this many bytes leaves its process meanwhile. */
  readonly parkStateBytes: number;
}

/** Where a run that left its process (at a call) goes on from, in another one. */
export interface PythonParkedRun {
  /** Monty's saved state (base64), at the call. */
  readonly state: string;
  /** CPU time the program used so far, ms. */
  readonly cpuMs: number;
  /** A line printed so far without its newline. */
  readonly partialLine: string;
}

export type HostToPython =
  | {
      readonly type: 'run';
      readonly jobId: number;
      readonly code: string;
      readonly functions: Readonly<Record<string, PythonFunction>>;
      readonly limits: PythonProcessLimits;
      /** Continue from a paused run's saved state (base64) at its call `seq`. */
      readonly resumeFrom?: GuestSuspension;
      /** With `resumeFrom`: the outcome of its call `seq`, which the program resumes with (no call is made again). */
      readonly answer?: HostCallOutcome;
      /** With `resumeFrom`: what a run that left its process at that call carries on with. */
      readonly carried?: Omit<PythonParkedRun, 'state'>;
      /** The host keeps no more log lines: print() output need not cross. */
      readonly logsFull?: boolean;
    }
  /**
   * The outcome of the call the run waits on. `reload`: the run waited long enough on
   * tools that its program is reloaded from its state first (Monty's clock starts over).
   */
  | { readonly type: 'answer'; readonly jobId: number; readonly outcome: HostCallOutcome; readonly reload: boolean }
  /** The host stopped the run while it waited on a call: end it, with its saved state when `suspend`. */
  | { readonly type: 'stop'; readonly jobId: number; readonly suspend: boolean }
  | { readonly type: 'check'; readonly jobId: number; readonly code: string; readonly prefix: string };

/** How a run ended in the process: its result, or a failure (a stopped run's saved state in `suspended`). */
export type PythonRunEnd =
  | { readonly ok: true; readonly result?: JsonValue }
  | {
      readonly ok: false;
      readonly kind: FailureKind;
      readonly message: string;
      readonly location?: { readonly line: number; readonly column: number };
      readonly suspended?: GuestSuspension;
    };

export type PythonToHost =
  /** Monty is loaded: the process takes jobs. */
  | { readonly type: 'ready' }
  /** Monty could not be loaded: the process exits. */
  | { readonly type: 'unusable'; readonly message: string }
  | {
      readonly type: 'call';
      readonly jobId: number;
      readonly seq: number;
      readonly tool: string;
      readonly argsJson: string;
      /** The run left the process, which takes a new job now. */
      readonly parked?: PythonParkedRun;
    }
  | { readonly type: 'log'; readonly jobId: number; readonly line: string }
  | { readonly type: 'logs-truncated'; readonly jobId: number; readonly by: 'bytes' | 'lines' }
  | { readonly type: 'done'; readonly jobId: number; readonly end: PythonRunEnd }
  | { readonly type: 'checked'; readonly jobId: number; readonly check: PythonTypeCheck };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function isRunEnd(value: unknown): value is PythonRunEnd {
  if (!isObject(value)) return false;
  if (value['ok'] === true) return true;
  if (value['ok'] !== false || typeof value['kind'] !== 'string' || !FAILURE_KINDS.has(value['kind'])) return false;
  if (typeof value['message'] !== 'string') return false;
  const suspended = value['suspended'];
  return (
    suspended === undefined ||
    (isObject(suspended) && typeof suspended['state'] === 'string' && typeof suspended['seq'] === 'number')
  );
}

function isParked(value: unknown): value is PythonParkedRun {
  return (
    isObject(value) &&
    typeof value['state'] === 'string' &&
    typeof value['cpuMs'] === 'number' &&
    typeof value['partialLine'] === 'string'
  );
}

function isTypeCheck(value: unknown): value is PythonTypeCheck {
  if (!isObject(value)) return false;
  if (value['ok'] === false) return typeof value['reason'] === 'string';
  return value['ok'] === true && Array.isArray(value['diagnostics']);
}

/** The message if it is a well-formed PythonToHost, else undefined. */
export function parsePythonMessage(value: unknown): PythonToHost | undefined {
  if (!isObject(value)) return undefined;
  const message = value as PythonToHost;
  const jobOk = typeof value['jobId'] === 'number';
  switch (value['type']) {
    case 'ready':
      return message;
    case 'unusable':
      return typeof value['message'] === 'string' ? message : undefined;
    case 'call':
      return jobOk &&
        typeof value['seq'] === 'number' &&
        typeof value['tool'] === 'string' &&
        typeof value['argsJson'] === 'string' &&
        (value['parked'] === undefined || isParked(value['parked']))
        ? message
        : undefined;
    case 'log':
      return jobOk && typeof value['line'] === 'string' ? message : undefined;
    case 'logs-truncated':
      return jobOk && (value['by'] === 'bytes' || value['by'] === 'lines') ? message : undefined;
    case 'done':
      return jobOk && isRunEnd(value['end']) ? message : undefined;
    case 'checked':
      return jobOk && isTypeCheck(value['check']) ? message : undefined;
    default:
      return undefined;
  }
}
