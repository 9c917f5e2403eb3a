// run_code's `session` parameter (with sessions on): how a program continues a session.

/** The schema of run_code's `session` argument. */
export const SESSION_PARAMETER = {
  type: 'string',
  maxLength: 256,
  description:
    "Continue a session: the id from an earlier result's session. The program's global `state` then holds what that " +
    "session's last program left there. Omit to start a new session (state starts as {}).",
} as const;
