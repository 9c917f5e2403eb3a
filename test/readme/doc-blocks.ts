// The fenced code blocks of README.md and docs/*.md, as the documentation tests see them.
//
// A fence's info string is a language, then tags: ```ts, ```sh no-run, ```js cjs, ```ts file=examples/x.ts.
// - ts / js / sh blocks run unless tagged `no-run` (a block that needs a key, a server or a network);
// - every ts block, run or not, is type-checked;
// - `cjs` runs a js block as CommonJS; `file=<path>` says the block is that repository file, word for word
//   (the file itself is type-checked and run by the test suite);
// - `postgres` marks a block that needs a PostgreSQL server: it runs, with DATABASE_URL set to a throwaway
//   cluster, in postgres-recipe.test.ts (not in doc-blocks.test.ts);
// - a ```text output block right after a block that runs is what that block prints: each of its lines is
//   found, in order, among the lines the block printed (`…` stands for any text: ids, times);
// - any other language (text, json) is output or configuration, not code.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

export type BlockLanguage = 'ts' | 'js' | 'sh';

export interface DocBlock {
  /** The document, relative to the repository root (README.md, docs/x.md). */
  readonly doc: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly language: BlockLanguage | undefined;
  readonly info: string;
  readonly tags: readonly string[];
  readonly code: string;
  readonly runs: boolean;
  /** `file=<path>`: the repository file the block shows. */
  readonly file: string | undefined;
  /** The lines of the ```text output block that follows it: what it prints. */
  readonly output: readonly string[] | undefined;
}

const languages: Record<string, BlockLanguage> = {
  ts: 'ts',
  typescript: 'ts',
  js: 'js',
  javascript: 'js',
  sh: 'sh',
  bash: 'sh',
  shell: 'sh',
};

/** README.md and every docs/*.md, relative to the root. */
export function documents(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

export function blocksOf(doc: string, text: string = readFileSync(join(root, doc), 'utf8')): DocBlock[] {
  const blocks: DocBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i]!);
    if (open === null) continue;
    const [, indent, fence, info] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j]!;
      if (line.trim().startsWith(fence!) && line.trim() === fence!.charAt(0).repeat(line.trim().length)) break;
      body.push(line.startsWith(indent!) ? line.slice(indent!.length) : line);
    }
    const words = info!.trim().split(/\s+/).filter(Boolean);
    const language = words[0] === undefined ? undefined : languages[words[0]];
    const tags = words.slice(1);
    const file = tags.find((tag) => tag.startsWith('file='))?.slice('file='.length);
    const previous = blocks.at(-1);
    if (words[0] === 'text' && tags.includes('output') && previous !== undefined) {
      blocks[blocks.length - 1] = { ...previous, output: body.filter((line) => line.trim() !== '') };
    }
    blocks.push({
      doc,
      line: i + 1,
      language,
      info: info!.trim(),
      tags,
      code: `${body.join('\n')}\n`,
      runs: language !== undefined && file === undefined && !tags.includes('no-run') && !tags.includes('postgres'),
      file,
      output: undefined,
    });
    i = j;
  }
  return blocks;
}

export function allBlocks(): DocBlock[] {
  return documents().flatMap((doc) => blocksOf(doc));
}

/** What a block's `console.log(…); // shown` lines say they print, in order. */
export function expectedOutput(code: string): string[] {
  return [...code.matchAll(/console\.log\([^\n]*\); \/\/ ([^\n]+)/g)].map((m) => m[1]!.trim());
}

/**
 * The lines of `printed` that match `expected` in order (`…` stands for any text); the first
 * expected line that is not found, with what was printed, when one is missing.
 */
export function missingOutput(expected: readonly string[], printed: string): string | undefined {
  const lines = printed.split('\n').map((line) => line.trimEnd());
  let at = 0;
  for (const line of expected) {
    const pattern = new RegExp(
      `^${line
        .trimEnd()
        .split('…')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
      'u',
    );
    const found = lines.findIndex((printedLine, i) => i >= at && pattern.test(printedLine));
    if (found < 0) return `no line like ${JSON.stringify(line)} after line ${at} of:\n${printed}`;
    at = found + 1;
  }
  return undefined;
}

/**
 * Runs a shell block from the repository root under `bash -euo pipefail`, with `ptc` on the
 * PATH as this checkout's CLI (a shim in `scratch`); resolves to what it printed.
 */
export function runShellBlock(block: DocBlock, scratch: string, env: NodeJS.ProcessEnv = {}): string {
  const bin = join(scratch, 'bin');
  if (!existsSync(bin)) {
    mkdirSync(bin);
    const ptc = join(bin, 'ptc');
    writeFileSync(ptc, `#!/bin/sh\nexec "${process.execPath}" --no-node-snapshot "${join(root, 'bin/ptc.js')}" "$@"\n`);
    chmodSync(ptc, 0o755);
  }
  return execFileSync('bash', ['-euo', 'pipefail', '-c', block.code], {
    cwd: root,
    encoding: 'utf8',
    timeout: 90_000,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env, PATH: [bin, dirname(process.execPath), process.env['PATH'] ?? ''].join(delimiter) },
  });
}

/** A short name for messages: docs/x.md:12. */
export const where = (block: DocBlock): string => `${block.doc}:${block.line}`;

/**
 * The repository's workshop: folders a package user does not have. A path into one of them
 * (or the bare name of a source file in one) has no place in user docs; Markdown documents
 * there (`bench/README.md`) may be linked. `examples/`, `scripts/` and `bin/ptc.js` are what a
 * user of a clone runs, so they may be named.
 */
export const WORKSHOP_FOLDERS = ['src', 'sandbox', 'sdk-gen', 'test', 'bench'] as const;

const SOURCE_EXTENSION = /\.(?:ts|mts|cts|js|mjs|cjs|py|sh)$/u;

/** Base names of the source files in the workshop folders (a name examples/ also has is a user's name). */
export function workshopFileNames(): Set<string> {
  const names = new Set<string>();
  const examples = new Set<string>();
  const walk = (dir: string, into: Set<string>): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      if (entry.isDirectory()) walk(join(dir, entry.name), into);
      else if (SOURCE_EXTENSION.test(entry.name)) into.add(entry.name);
    }
  };
  for (const folder of WORKSHOP_FOLDERS) walk(folder, names);
  walk('examples', examples);
  for (const name of examples) names.delete(name);
  return names;
}

/** Paths into the workshop folders, and bare workshop file names, that `text` mentions. */
export function sourcePaths(text: string, fileNames: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const folders = WORKSHOP_FOLDERS.join('|');
  for (const match of text.matchAll(new RegExp(`(?<![\\w@./-])(?:${folders})/[\\w./-]*`, 'gu'))) {
    if (!match[0].endsWith('.md')) found.push(match[0]);
  }
  for (const match of text.matchAll(/(?<![\w@./-])[\w-]+(?:\.[\w-]+)*\.(?:ts|mts|cts|js|mjs|cjs|py|sh)(?![\w-])/gu)) {
    if (fileNames.has(match[0])) found.push(match[0]);
  }
  return found;
}

/**
 * Phrases of an engineering log rather than of documentation: what changed ("no longer",
 * "now preempt"), how the work went (rounds, stops, targets met or missed, what was tried,
 * commit hashes), and what the test suite does ("a test runs every block").
 */
export const LOG_PHRASES: readonly RegExp[] = [
  /\bno longer\b/giu,
  /(?<!\b(?:be|is|are|was|were|been|being|gets?|got) )\bused to\b/giu, // "it used to", not "can be used to"
  /\bpreviously\b/giu,
  /\bnow (?:preempt|stop|fail|run|return|work|use|take|start|keep|get)s?\b/giu,
  /\bbefore (?:this|the) (?:change|fix)\b/giu,
  /\b(?:this|last|previous|earlier|first|second|third|\w+th) (?:round|stop)\b/giu,
  /\btarget\b[^|\n]{0,40}?\b(?:met|missed)\b/giu,
  /\(target [≤<][^)]*\)/gu,
  /\(tried\)|\bwe (?:chose|changed|fixed|added|removed|tried|measured)\b/giu,
  /\bon (?:the|an) earlier (?:machine|guest)\b/giu,
  /`(?=[0-9]*[a-f])[0-9a-f]{7,40}`/gu,
  /\b(?:a|the|our|every|each) tests?\b/giu,
  /\btest suite\b|\btested (?:with|against|the same way)\b|\b(?:hostile|property) tests?\b/giu,
];

/** The engineering-log phrases `text` holds. */
export function logPhrases(text: string): string[] {
  return LOG_PHRASES.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[0]));
}
