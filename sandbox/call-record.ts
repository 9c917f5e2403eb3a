// The nested calls of one run's first attempt, kept so that the run can be re-run after
// its sandbox process died under it (another run's crash or hang, say) without any tool
// body running twice: the re-run's calls are answered from the record while they match
// it call for call (same order, tool and argument text), a call still in flight is
// awaited rather than issued again, and calls past the record go to the host as usual.
// A re-run that asks for something else diverged (the program is not deterministic,
// e.g. Math.random): it is stopped instead of repeating a side effect. The record is
// bounded in bytes; a run whose calls outgrow it simply cannot be re-run.
import { safeHostCall } from './call-bridge.ts';
import type { HostCall, HostCallOutcome, HostCallRequest } from './types.ts';

/** Bytes of argument and result text one run's record may hold. @default 8 MiB */
export const DEFAULT_RERUN_RECORD_BYTES = 8 * 1_048_576;

interface RecordedCall {
  readonly toolName: string;
  readonly argsJson: string;
  readonly outcome: Promise<HostCallOutcome>;
}

export interface Divergence {
  readonly seq: number;
  readonly toolName: string;
  readonly recordedToolName: string;
}

export class CallRecord {
  readonly #maxBytes: number;
  #calls: RecordedCall[] = [];
  #bytes = 0;
  #overflowed = false;
  #frozen = false;

  constructor(maxBytes: number = DEFAULT_RERUN_RECORD_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** Whether a re-run can be answered from this record (it never outgrew its budget). */
  get replayable(): boolean {
    return !this.#overflowed;
  }

  /** Calls recorded so far. */
  get size(): number {
    return this.#calls.length;
  }

  /** `hostCall`, with each call and its (well-formed) outcome recorded until the record is frozen. */
  recording(hostCall: HostCall): HostCall {
    return (request) => {
      const outcome = safeHostCall(hostCall, request);
      if (!this.#frozen && !this.#overflowed) {
        this.#calls.push({ toolName: request.toolName, argsJson: request.argsJson, outcome });
        this.#count(request.toolName.length + request.argsJson.length);
        void outcome.then((settled) => {
          if (!this.#frozen) this.#count(settled.ok ? settled.valueJson.length : settled.message.length);
        });
      }
      return outcome;
    };
  }

  /**
   * For a re-run: calls 1..size (as recorded now) are answered from the record when they
   * match it, later ones go to `hostCall`. `onDiverge` is told of the first call that does
   * not match (which is refused, not issued). With `keepRecording` (a re-run that may
   * itself be re-run: one sharing its process with other runs) the later calls are
   * recorded too, so the next attempt answers them from the record as well; without it
   * the record stops growing.
   */
  replaying(hostCall: HostCall, onDiverge: (divergence: Divergence) => void, keepRecording = false): HostCall {
    if (!keepRecording) this.#frozen = true;
    // This attempt's view: calls a later attempt adds (or an overflow dropping them) do not change it.
    const recordedCalls = this.#calls.slice();
    const onward = keepRecording ? this.recording(hostCall) : hostCall;
    return (request: HostCallRequest) => {
      const recorded = recordedCalls[request.seq - 1];
      if (recorded === undefined) return onward(request);
      if (recorded.toolName === request.toolName && recorded.argsJson === request.argsJson) return recorded.outcome;
      onDiverge({ seq: request.seq, toolName: request.toolName, recordedToolName: recorded.toolName });
      return Promise.resolve({
        ok: false,
        code: 'RERUN_DIVERGED',
        message: `tools.${request.toolName} was not called: the re-run asked for something else than the first attempt's call #${request.seq}`,
      });
    };
  }

  #count(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes > this.#maxBytes && !this.#frozen) {
      // Over budget: this run cannot be re-run, so nothing is kept (calls in flight go on).
      this.#overflowed = true;
      this.#calls = [];
    }
  }
}
