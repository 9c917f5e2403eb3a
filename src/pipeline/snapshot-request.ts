// Requests whose arguments are already a snapshot (deep-frozen plain JSON from
// snapshotJson, or freezeParsedJson on text the caller alone parsed): the sequencer and
// the pipeline use them as they are instead of copying them again. Only code that
// imports this module can vouch for a request: the mark is a private field, which no
// object literal, Proxy or copy can carry, and the request is frozen, so its arguments
// cannot be swapped after the check. (A private brand, not a WeakSet of values: a weak
// collection costs about a microsecond per entry in garbage collection.)
import type { NestedExecuteRequest } from './execute-request.ts';

class SnapshotRequest {
  readonly #vouched = true;
  constructor(fields: NestedExecuteRequest) {
    Object.assign(this, fields);
    Object.freeze(this);
  }
  static vouched(value: object): boolean {
    return #vouched in value;
  }
}

/** A frozen copy of `request`, marked: its `arguments` must be a snapshot. */
export function snapshotRequest<R extends NestedExecuteRequest>(request: R): R {
  return new SnapshotRequest(request) as unknown as R;
}

/** Whether `request` was made by {@link snapshotRequest}. */
export function hasSnapshotArguments(request: unknown): boolean {
  return typeof request === 'object' && request !== null && SnapshotRequest.vouched(request);
}
