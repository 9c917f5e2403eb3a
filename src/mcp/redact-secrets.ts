// Header values given for a remote MCP server (`--mcp-header`, `headers`) are secrets:
// never printed. A server's error page may echo the request's headers back, and the
// MCP SDK puts that page into its error message; every message that leaves a remote
// connection (a failed import, a failed call) has those values replaced first.

/** Values shorter than this are not searched for (they would match ordinary text). */
const MIN_SECRET_LENGTH = 4;

export const REDACTED = '[redacted]';

/** A function that replaces every given secret (and its `Bearer `-less token part) in a text. */
export function secretRedactor(values: readonly string[]): (text: string) => string {
  const secrets = new Set<string>();
  for (const value of values) {
    const trimmed = value.trim();
    if (trimmed.length >= MIN_SECRET_LENGTH) secrets.add(trimmed);
    // `Authorization: Bearer <token>`: the token alone too, as a server may echo it bare.
    const token = /^\S+\s+(\S{4,})$/u.exec(trimmed)?.[1];
    if (token !== undefined) secrets.add(token);
  }
  // Longest first, so a token inside a longer value does not split it.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const secret of ordered) out = out.split(secret).join(REDACTED);
    return out;
  };
}

/** `error` with its message (and its causes' messages) redacted, as a plain Error keeping the name. */
export function redactError(error: unknown, redact: (text: string) => string): unknown {
  if (!(error instanceof Error)) return typeof error === 'string' ? redact(error) : error;
  const message = redact(error.message);
  if (message === error.message && (error.stack === undefined || redact(error.stack) === error.stack)) return error;
  try {
    error.message = message;
    if (error.stack !== undefined) error.stack = redact(error.stack);
    return error;
  } catch {
    const copy = new Error(message);
    copy.name = error.name;
    return copy;
  }
}
