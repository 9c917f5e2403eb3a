// The longest callId a top-level call may carry. A callId is repeated in every nested
// call's callId, in each journal event (callId, rootCallId, parentCallId) and in run
// events, so a long one is amplified by the number of calls it spawns: it is bounded
// where calls enter, not where the copies pile up.

/** Characters; a longer callId on a top-level call is a TypeError. */
export const MAX_CALL_ID_LENGTH = 256;

/** Throws a TypeError (without echoing the id) when a top-level callId is longer than MAX_CALL_ID_LENGTH. */
export function checkCallIdLength(callId: string, where: string): void {
  if (callId.length > MAX_CALL_ID_LENGTH) {
    throw new TypeError(
      `${where}: callId is ${callId.length} characters, more than the ${MAX_CALL_ID_LENGTH} a call may have (MAX_CALL_ID_LENGTH)`,
    );
  }
}
