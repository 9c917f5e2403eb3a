import { isUtf8 } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { UsageError } from './usage-error.ts';

/**
 * Reads a program from a file, or from standard input when the argument is `-`.
 * Text that is not valid UTF-8 is a usage error: decoding it anyway would run a
 * program with replacement characters the author never wrote.
 */
export async function readProgram(source: string): Promise<string> {
  let bytes: Buffer;
  if (source === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    bytes = Buffer.concat(chunks);
  } else {
    try {
      bytes = await readFile(source);
    } catch (error) {
      throw new UsageError(
        `cannot read program file "${source}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  if (!isUtf8(bytes)) {
    const where = source === '-' ? 'the program on standard input' : `program file "${source}"`;
    throw new UsageError(
      `${where} is not valid UTF-8 (first bad byte on line ${firstBadLine(bytes)}); save it as UTF-8`,
    );
  }
  return bytes.toString('utf8');
}

/** The 1-based line of the first byte sequence that is not UTF-8. */
function firstBadLine(bytes: Buffer): number {
  // Grow a valid prefix line by line: a line that breaks validity holds the first bad byte.
  let line = 1;
  let start = 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline + 1;
    if (!isUtf8(bytes.subarray(start, end))) return line;
    line += 1;
    start = end;
  }
  return line;
}
