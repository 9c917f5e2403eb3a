/**
 * The signal of a call that was given none. One shared instance, so every layer can
 * recognise "no caller signal" by identity and skip linking listeners to it.
 */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;
