// Where a --tools module failed to load or to register its tools, as `file:line:column: `:
// a syntax error where the parser stopped, an import Node could not resolve where the
// importing file names it, anything else thrown where it was thrown in the user's own code
// (the first stack frame outside Node's internals and outside this package).
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { locateSyntaxError, locationFromStack, shownPath } from './locate-syntax-error.ts';

/** This package's own folders (a checkout's sources, or the installed dist/ and bin/): their frames are not the user's. */
const packageRoot = fileURLToPath(new URL(import.meta.url.endsWith('.js') ? '../../../' : '../../', import.meta.url));
const ownFolders = ['src', 'dist', 'bin', 'sandbox', 'sdk-gen'].map((folder) => join(packageRoot, folder));
const inside = (folder: string, path: string): boolean => {
  const rest = relative(folder, path);
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest));
};
/** This package's code, from this checkout or installed anywhere (a tools module may import its own copy). */
const isOwn = (path: string): boolean =>
  ownFolders.some((folder) => inside(folder, path)) || /[\\/]node_modules[\\/]ptc-runtime[\\/]/u.test(path);
/** The CLI's folder: a frame there is the loader that imported the module or called its function. */
const cliFolder = fileURLToPath(new URL('./', import.meta.url));
const inDependency = (path: string): boolean => /[\\/]node_modules[\\/]/u.test(path);

interface Place {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

const format = (place: Place | undefined): string =>
  place === undefined ? '' : `${place.file}:${place.line}:${place.column}: `;

/** A stack frame's `path:line:column`: with or without a function name or `async`, a file URL or a path (POSIX, Windows, UNC). */
const FRAME = /^\s*at (?:async )?(?:[^()]*? \()?((?:file:\/\/)?\/.*?|[A-Za-z]:[\\/].*?|\\\\.*?):(\d+):(\d+)\)?$/u;

/**
 * The first frame of `stack` in the user's own files, above the CLI's loader: not Node's,
 * not this package's, and outside node_modules when there is such a frame (else the first
 * in a dependency).
 */
export function userFrame(stack: string | undefined): Place | undefined {
  let dependency: Place | undefined;
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const match = FRAME.exec(line);
    if (match === null) continue;
    const path = match[1]!.startsWith('file://') ? fileURLToPath(match[1]!) : match[1]!;
    // The CLI loading the module: every frame below is the CLI's own way there.
    if (inside(cliFolder, path)) break;
    if (isOwn(path)) continue;
    const place = { file: shownPath(path), line: Number(match[2]), column: Number(match[3]) };
    if (!inDependency(path)) return place;
    dependency ??= place;
  }
  return dependency;
}

/** `source` with its comments blanked (same length, same lines): an import in a comment is not one. */
function withoutComments(source: string): string {
  return source.replace(
    /("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`)|\/\/[^\n]*|\/\*[\s\S]*?\*\//gu,
    (text, literal) => (literal === undefined ? text.replace(/[^\n]/gu, ' ') : text),
  );
}

/** Node's "Cannot find module|package 'X' imported from /path": where /path names X. */
async function unresolvedImportPlace(error: Error): Promise<Place | undefined> {
  const found = /Cannot find (module|package) '([^']+)' imported from (.+)$/mu.exec(error.message);
  if (found === null) return undefined;
  const [, kind, target, importerText] = found as unknown as [string, string, string, string];
  const importer = importerText.startsWith('file://') ? fileURLToPath(importerText) : importerText;
  const source = await readFile(importer, 'utf8').catch(() => undefined);
  if (source === undefined) return undefined;
  // Every string an import names: `from '…'`, `import '…'`, `import('…')`.
  for (const literal of withoutComments(source).matchAll(/\b(?:from|import)\s*\(?\s*(['"])([^'"\n]+)\1/gu)) {
    const specifier = literal[2]!;
    const names =
      kind === 'package'
        ? specifier === target || specifier.startsWith(`${target}/`)
        : specifier.startsWith('.') && resolve(dirname(importer), specifier) === resolve(target);
    if (!names) continue;
    const at = literal.index + literal[0].indexOf(literal[1]!);
    const before = source.slice(0, at).split('\n');
    return { file: shownPath(importer), line: before.length, column: before.at(-1)!.length + 1 };
  }
  return undefined;
}

/** `file:line:column: ` of a failed `import()` of the tools module `file`, else ''. */
export async function loadErrorPlace(file: string, error: unknown): Promise<string> {
  if (!(error instanceof Error) && (error as Error | null)?.stack === undefined) return '';
  const failure = error as Error;
  if (failure.name === 'SyntaxError') {
    // A parse error, or a SyntaxError the module's code threw (JSON.parse) where it threw it.
    const parse = locationFromStack(failure.stack) ?? (await locateSyntaxError(file).catch(() => undefined));
    return format(parse ?? userFrame(failure.stack));
  }
  if ((failure as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') {
    return format(await unresolvedImportPlace(failure));
  }
  return format(userFrame(failure.stack));
}

/** `file:line:column: ` where the tools module's registering function threw, else ''. */
export function registerErrorPlace(error: unknown): string {
  return format(userFrame((error as Error | null)?.stack));
}
