// `exec.session`: the session a tool call was made on (`rt.execute({ session })`), so a
// tool called natively keeps data between the calls of a conversation the way run_code
// programs do with `state` — the same session, the same store, the same expiry.

import type { JsonValue } from '../json/json-value.ts';

/** The session of a tool call made with `rt.execute({ session })` (see docs/sessions.md). */
export interface ToolSession {
  /** The session's id. */
  readonly id: string;
  /**
   * The session's state as the last save left it: a JSON object (`{}` for a new session).
   * A value JSON has no form for, saved by a program (a Map, a Date, …), appears in its
   * saved form, `{"$":[tag, …]}`. Throws SESSION_EXPIRED (unknown, expired, another agent's
   * or principal's session).
   */
  read(): Promise<{ readonly [key: string]: JsonValue }>;
  /**
   * Saves `state` (a plain JSON object, at most the session's `maxBytes` serialized) as the
   * session's state now. Refused, and nothing saved: SESSION_BUSY while a program runs on
   * the session, or when it was saved since this call's `read()` (never a lost update);
   * SESSION_EXPIRED; a TypeError naming the path of a value that is not JSON data, or of
   * an object key `$` (reserved for the saved form).
   */
  write(state: { readonly [key: string]: JsonValue }): Promise<void>;
}
