// Text a remote party wrote — an MCP server's error page (which the MCP SDK puts into its
// error message), its name, its tools' names, a stdio server's stderr — is quoted in our
// errors and warnings only as a bounded excerpt with its control characters escaped:
// a 2 MiB page must not be copied whole to a log, and its escape sequences must not
// reach a terminal (clear the screen, retitle the window, hide the lines before them).

/** The most characters of one remote text an error or warning quotes (escapes included). */
export const MAX_REMOTE_EXCERPT_CHARS = 1_000;

// C0 and C1 controls (ESC, CR, BEL, DEL, …) and the Unicode marks that reorder or hide
// what follows on a line. Tab is kept; line feed only where `newlines` says so.
function isControl(code: number, keepNewlines: boolean): boolean {
  if (code < 0x20) return code !== 0x09 && !(keepNewlines && code === 0x0a);
  if (code >= 0x7f && code <= 0x9f) return true;
  return (
    code === 0x061c ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

export interface QuoteOptions {
  /** Characters kept at most. @default MAX_REMOTE_EXCERPT_CHARS */
  readonly maxChars?: number;
  /** Keep line feeds (a multi-line stderr tail) instead of escaping them. @default false */
  readonly newlines?: boolean;
}

function escapeChar(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` whole, with its control characters (not tab or line feed) escaped: a remote tool's own error text. */
export function escapeRemoteControls(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (!isControl(text.charCodeAt(i), true)) continue;
    out += text.slice(from, i) + escapeChar(text[i]!);
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** `text` with its control characters escaped (`\x1b`), cut to `maxChars` with a note of what was left out. */
export function quoteRemoteText(text: string, options: QuoteOptions = {}): string {
  const max = options.maxChars ?? MAX_REMOTE_EXCERPT_CHARS;
  const keepNewlines = options.newlines === true;
  let out = '';
  let shown = 0;
  for (; shown < text.length; shown += 1) {
    const char = text[shown]!;
    const piece = isControl(char.charCodeAt(0), keepNewlines) ? escapeChar(char) : char;
    if (out.length + piece.length > max) break;
    out += piece;
  }
  // Never end on half a surrogate pair.
  const last = shown > 0 ? text.charCodeAt(shown - 1) : 0;
  if (shown < text.length && last >= 0xd800 && last <= 0xdbff) {
    shown -= 1;
    out = out.slice(0, -1);
  }
  return shown < text.length ? `${out}… [${text.length - shown} more characters not shown]` : out;
}

/**
 * `error` (and its causes) with each message passed through `redact` and then quoted; the
 * stack's copy of the message likewise. The error itself is kept (its class and code).
 */
export function quoteRemoteError(error: unknown, redact: (text: string) => string = (t) => t): unknown {
  if (!(error instanceof Error)) return typeof error === 'string' ? quoteRemoteText(redact(error)) : error;
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 8; depth += 1) {
    quoteInPlace(current, redact);
    current = (current as { cause?: unknown }).cause;
  }
  return error;
}

function quoteInPlace(error: Error, redact: (text: string) => string): void {
  const original = error.message;
  const message = quoteRemoteText(redact(original));
  const stack = error.stack;
  let quotedStack = stack;
  if (stack !== undefined) {
    const at = stack.indexOf(original);
    quotedStack =
      at >= 0 && original !== ''
        ? `${stack.slice(0, at)}${message}${stack.slice(at + original.length)}`
        : quoteRemoteText(redact(stack), { newlines: true, maxChars: 4 * MAX_REMOTE_EXCERPT_CHARS });
  }
  try {
    if (message !== original) error.message = message;
    if (quotedStack !== undefined && quotedStack !== stack) error.stack = quotedStack;
  } catch {
    // A frozen error keeps its text; the message it is quoted in is bounded by its caller.
  }
}
