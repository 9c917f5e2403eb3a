// `--mcp "<command line>"`: splits one command line into the program and its
// arguments, the way a POSIX shell splits words — without running a shell (no
// variables, globs, pipes or redirections), so what is written is what is spawned.

/** The program to spawn and its arguments. */
export interface ParsedCommandLine {
  readonly command: string;
  readonly args: string[];
}

/**
 * Splits `text` into words: whitespace separates; '…' keeps everything literally;
 * "…" keeps everything but lets a backslash escape `"`, `\`, `$` and backtick;
 * outside quotes a backslash escapes the next character.
 * Throws a TypeError for an unterminated quote or an empty command line.
 */
export function parseCommandLine(text: string): ParsedCommandLine {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1]!)) word += text[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/u.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote !== undefined) throw new TypeError(`command line ${JSON.stringify(text)}: unterminated ${quote} quote`);
  if (inWord) words.push(word);
  const [command, ...args] = words;
  if (command === undefined || command === '') {
    throw new TypeError(
      `command line ${JSON.stringify(text)}: empty; give the server's program and arguments, e.g. "npx @modelcontextprotocol/server-filesystem ."`,
    );
  }
  return { command, args };
}
