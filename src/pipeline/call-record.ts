// What a durable store records about a call before any stage runs (write-ahead).
import type { JsonValue } from '../json/json-value.ts';

export interface CallRecord {
  readonly callId: string;
  readonly name: string;
  /** The calling agent's id; undefined for the global scope. */
  readonly agent: string | undefined;
  /** The lossless snapshot the tool will see; null when the arguments are not JSON (the call is refused). */
  readonly arguments: JsonValue;
  readonly rootCallId: string;
  /** The parent execution's callId, for nested calls. */
  readonly parentCallId: string | undefined;
  /** A durable run's nested call: the run's id (its rows are that run's, whatever callIds other runs use). */
  readonly runId?: string;
}
