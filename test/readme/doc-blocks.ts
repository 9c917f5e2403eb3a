// The fenced code blocks of README.md and docs/*.md, as the documentation tests see them.
//
// A fence's info string is a language, then tags: ```ts, ```sh no-run, ```js cjs, ```ts file=examples/x.ts.
// - ts / js / sh blocks run unless tagged `no-run` (a block that needs a key, a server or a network);
// - every ts block, run or not, is type-checked;
// - `cjs` runs a js block as CommonJS; `file=<path>` says the block is that repository file, word for word
//   (the file itself is type-checked and run by the test suite);
// - any other language (text, json) is output or configuration, not code.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
    blocks.push({
      doc,
      line: i + 1,
      language,
      info: info!.trim(),
      tags,
      code: `${body.join('\n')}\n`,
      runs: language !== undefined && file === undefined && !tags.includes('no-run'),
      file,
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

/** A short name for messages: docs/x.md:12. */
export const where = (block: DocBlock): string => `${block.doc}:${block.line}`;
