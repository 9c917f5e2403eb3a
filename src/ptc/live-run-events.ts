// The live events of one run_code run (console lines, nested call starts and ends), and
// the outcome a program gets for a call whose submission threw.
import type { HostCallOutcome } from '../../sandbox/types.ts';
import { ERROR_CODES } from '../errors/error-codes.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { RunEvents, RunEventSource } from './run-events.ts';

/** What a nested call ended with: the program's outcome and the call's final result (when it has one). */
export interface NestedCallEnd {
  readonly outcome: HostCallOutcome;
  readonly result?: ToolResult;
}

export function thrownOutcome(error: unknown): HostCallOutcome {
  const code = (error as { code?: unknown } | null)?.code;
  return {
    ok: false,
    code: typeof code === 'string' ? code : ERROR_CODES.TOOL_ERROR,
    message: error instanceof Error ? error.message : String(error),
  };
}

interface LiveEvents {
  readonly onLog: ((line: string) => void) | undefined;
  callStart(callId: string, seq: number, name: string): void;
  callEnd(callId: string, seq: number, name: string, outcome: NestedCallEnd): void;
}

/** The run's live events; nothing is built for an event nobody listens to. */
export function liveEvents(events: RunEvents | undefined, source: RunEventSource): LiveEvents {
  if (events === undefined) return { onLog: undefined, callStart: () => {}, callEnd: () => {} };
  let index = 0;
  return {
    onLog: (line) => {
      index += 1;
      if (events.has('run/log')) events.emit('run/log', Object.freeze({ ...source, line, index }));
    },
    callStart(callId, seq, name) {
      if (events.has('run/call-start')) events.emit('run/call-start', Object.freeze({ ...source, callId, seq, name }));
    },
    callEnd(callId, seq, name, { outcome, result }) {
      if (!events.has('run/call-end')) return;
      events.emit(
        'run/call-end',
        Object.freeze({
          ...source,
          callId,
          seq,
          name,
          isError: !outcome.ok,
          ...(outcome.ok ? {} : { error: Object.freeze({ code: outcome.code, message: outcome.message }) }),
          ...(result === undefined ? {} : { result }),
        }),
      );
    },
  };
}
