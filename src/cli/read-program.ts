import { readFile } from 'node:fs/promises';
import { UsageError } from './usage-error.ts';

/** Reads a program from a file, or from standard input when the argument is `-`. */
export async function readProgram(source: string): Promise<string> {
  if (source === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await readFile(source, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read program file "${source}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
