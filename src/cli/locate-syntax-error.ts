// Where a --tools module (or a file it imports) fails to parse. Node's own SyntaxError from
// `import()` carries no location for JavaScript (it prints one only when the error goes
// uncaught) and only a line for TypeScript, so the module and its relative imports are
// parsed again, by esbuild, to name the file, line and column. Runs only after a load failed.
import { relative, resolve } from 'node:path';

export interface SyntaxErrorLocation {
  /** The file, relative to the working directory when it lies inside it. */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  readonly message: string;
}

/** A path relative to the working directory when it lies inside it, else as it is. */
export const shownPath = (path: string): string => {
  const inside = relative(process.cwd(), path);
  return inside.startsWith('..') || inside === '' ? path : inside;
};

/** The first syntax error esbuild finds in `entry` or the relative imports it follows; undefined when it finds none. */
export async function locateSyntaxError(entry: string): Promise<SyntaxErrorLocation | undefined> {
  // The esbuild service's stderr goes to a file of ours (imported before esbuild loads).
  await import('../../sandbox/esbuild-stderr.ts');
  const { build } = await import('esbuild');
  try {
    await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      packages: 'external', // only the user's own files: a dependency's syntax is not theirs to fix
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
    });
    return undefined;
  } catch (error) {
    const first = (error as { errors?: { text?: string; location?: { file: string; line: number; column: number } }[] })
      .errors?.[0];
    if (first?.location === undefined || first.location === null) return undefined;
    return {
      file: shownPath(resolve(first.location.file)),
      line: first.location.line,
      column: first.location.column + 1,
      message: first.text ?? 'syntax error',
    };
  }
}

/**
 * The location Node puts at the top of a TypeScript SyntaxError's stack (type stripping):
 * `path:line`, the source line, then a caret under the column.
 */
export function locationFromStack(stack: string | undefined): Omit<SyntaxErrorLocation, 'message'> | undefined {
  const lines = (stack ?? '').split('\n');
  const header = /^(?:file:\/\/)?(\/.*|[A-Za-z]:\\.*):(\d+)$/u.exec(lines[0] ?? '');
  if (header === null) return undefined;
  const caret = lines.slice(1, 4).find((line) => /^\s*\^+\s*$/u.test(line));
  return {
    file: shownPath(decodeURIComponent(header[1]!)),
    line: Number(header[2]),
    column: caret === undefined ? 1 : caret.indexOf('^') + 1,
  };
}
