// Every code block of README.md and docs/*.md runs as written (or, tagged `no-run`, at
// least type-checks when it is TypeScript); see doc-blocks.ts for the fence tags. The
// package name resolves to the TypeScript sources (the `ptc-source` export condition), and
// `ptc` in a shell block is this checkout's bin/ptc.js.
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import {
  allBlocks,
  blocksOf,
  type DocBlock,
  documents,
  expectedOutput,
  logPhrases,
  missingOutput,
  root,
  runShellBlock,
  sourcePaths,
  where,
  workshopFileNames,
} from './doc-blocks.ts';

mkdirSync(join(root, '.build-test'), { recursive: true });
// Inside the package, so `ptc-runtime` is a self-reference that the ptc-source condition points at the sources.
const scratch = mkdtempSync(join(root, '.build-test', 'doc-blocks-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const blocks = allBlocks();
const fileName = (block: DocBlock, extension: string): string =>
  join(scratch, `${block.doc.replace(/[/.]/g, '_')}-${block.line}${extension}`);

function runNode(block: DocBlock): string {
  const extension = block.language === 'ts' ? '.ts' : block.tags.includes('cjs') ? '.cjs' : '.mjs';
  const file = fileName(block, extension);
  writeFileSync(file, block.code);
  try {
    return execFileSync(process.execPath, ['--conditions=ptc-source', '--disable-warning=ExperimentalWarning', file], {
      cwd: scratch,
      encoding: 'utf8',
      timeout: 90_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    // What the block printed on stderr says why it failed; the bare error says only that it did.
    const { stderr, signal } = error as { stderr?: string; signal?: string };
    throw new Error(`${where(block)} failed (${signal ?? 'non-zero exit'}): ${String(stderr ?? '').slice(0, 4000)}`);
  }
}

const runShell = (block: DocBlock): string => runShellBlock(block, scratch);

describe('documentation', () => {
  it('README.md stays at most 400 lines', () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(400);
  });

  it('has code blocks of every kind', () => {
    const kinds = new Set(blocks.map((b) => `${b.language}:${b.runs}`));
    expect([...kinds]).toEqual(expect.arrayContaining(['ts:true', 'ts:false', 'sh:true', 'sh:false', 'js:true']));
  });

  it('reads like user documentation: no test files or issue numbers; one advisory link', () => {
    const found: string[] = [];
    const advisories = new Set<string>();
    for (const doc of documents()) {
      const text = readFileSync(join(root, doc), 'utf8');
      for (const match of text.matchAll(/\btest\/[\w/.-]+|\bissue[- ]?#?\d+|\bGHSA-[\w-]+/gi)) {
        // The advisory may be named once: its link text and its address on one line.
        if (match[0].startsWith('GHSA-')) advisories.add(`${doc}:${text.slice(0, match.index).split('\n').length}`);
        else found.push(`${doc}: ${match[0]}`);
      }
    }
    expect(found).toEqual([]);
    expect(advisories.size).toBeLessThanOrEqual(1);
  });

  it('speaks to users: no source paths, no engineering log, no test talk', () => {
    const names = workshopFileNames();
    const found: string[] = [];
    for (const doc of documents()) {
      readFileSync(join(root, doc), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const path of sourcePaths(line, names)) found.push(`${doc}:${i + 1}: source path ${path}`);
          for (const phrase of logPhrases(line)) found.push(`${doc}:${i + 1}: engineering log "${phrase}"`);
        });
    }
    // See CONTRIBUTING.md, "Writing documentation": name what a user runs, not where it is implemented.
    expect(found).toEqual([]);
  });

  it('the user-docs check finds what it is for, and leaves what users run alone', () => {
    const names = workshopFileNames();
    const bare = [...names].sort().find((name) => /^[a-z][\w-]*\.ts$/u.test(name))!; // a source file's name without its folder
    const bad = [
      `The rule lives in \`src/scheduler/resolve-journal.ts\` and sandbox/guest/timers.ts; see ${bare}.`,
      'Runs `node bench/journal-bench.ts`; the folder `test/readme/`.',
    ].join('\n');
    expect(sourcePaths(bad, names)).toEqual([
      'src/scheduler/resolve-journal.ts',
      'sandbox/guest/timers.ts',
      'bench/journal-bench.ts',
      'test/readme/',
      bare,
    ]);
    const fine =
      'Run `bash scripts/example.sh examples/agent-loop/scripted-run.ts`, `node bin/ptc.js`, `ptc-runtime/sandbox`, ' +
      'your `./tools.ts` or `my-tools.ts`, and read [bench/README.md](../bench/README.md).';
    expect(sourcePaths(fine, names)).toEqual([]);
    expect(
      logPhrases(
        'They no longer stop at the first call (a test runs every block of these docs). Runs now preempt the ' +
          'runaways. Tested with a 900 KB id; at `ac0a769` the target (1.5×) is met; this stop; nice (tried).',
      ),
    ).toEqual([
      'no longer',
      'now preempt',
      'this stop',
      'target (1.5×) is met',
      '(tried)',
      '`ac0a769`',
      'a test',
      'Tested with',
    ]);
    expect(
      logPhrases(
        'A paused run is left out of `rt.runs()`; `createMemoryJournal()` is for tests; token `3426812`; ' +
          'a scope cannot be used to probe for runs.',
      ),
    ).toEqual([]);
    expect(logPhrases('The sandbox used to stop here.')).toEqual(['used to']);
  });

  it('a ```text output block is what the block before it prints: its lines in order, … for any text', () => {
    const [shown] = blocksOf(
      'x.md',
      '```sh\necho "run 1a2b: 2 calls"; echo done\n```\n\n```text output\nrun …: 2 calls\ndone\n```\n',
    );
    expect(shown!.output).toEqual(['run …: 2 calls', 'done']);
    expect(missingOutput(shown!.output!, 'start\nrun 1a2b: 2 calls\nmore\ndone\n')).toBeUndefined();
    expect(missingOutput(shown!.output!, 'done\nrun 1a2b: 2 calls\n')).toMatch(/^no line like "done" after line 2/);
    expect(missingOutput(['run (1): x'], 'run 7: x\n')).toMatch(/no line like/); // the rest is literal
  });

  it('links to files that exist', () => {
    const broken: string[] = [];
    for (const doc of documents()) {
      const text = readFileSync(join(root, doc), 'utf8')
        .replace(/```[\s\S]*?```/g, '')
        .replace(/`[^`\n]*`/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const path = target!.split('#')[0]!;
        if (path === '' || /^[a-z]+:/i.test(path) || path.startsWith('docs/api/') || path.startsWith('api/')) continue;
        if (!existsSync(resolve(root, dirname(doc), path))) broken.push(`${doc}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('a block that shows a repository file shows it word for word', () => {
    for (const block of blocks.filter((b) => b.file !== undefined)) {
      const file = readFileSync(join(root, block.file!), 'utf8');
      expect({ block: where(block), code: block.code.trim() }).toEqual({ block: where(block), code: file.trim() });
    }
  });

  it('every TypeScript block type-checks (strict, as the repository)', () => {
    const files = blocks
      .filter((b) => b.language === 'ts' && b.file === undefined)
      .map((block) => {
        const file = fileName(block, '.check.ts');
        writeFileSync(file, `${block.code}\nexport {};\n`);
        return file;
      });
    expect(files.length).toBeGreaterThan(3);
    const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile.bind(ts.sys));
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    const program = ts.createProgram(files, { ...parsed.options, noEmit: true });
    // Only the blocks' own diagnostics: the checker then resolves just what they use of the
    // sources (the sources themselves are type-checked by the typecheck step).
    const diagnostics = files
      .flatMap((file) => {
        const source = program.getSourceFile(file);
        if (source === undefined) throw new Error(`the type check did not load ${file}`);
        return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
      })
      .map((d) => {
        const { line, character } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        return `${relative(scratch, d.file!.fileName)}:${line + 1}:${character + 1} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(diagnostics).toEqual([]);
  }, 120_000);

  const runnable = blocks.filter((b) => b.runs);
  it.each(runnable.map((block) => [where(block), block] as const))(
    '%s runs and prints what its comments say',
    (_name, block) => {
      const stdout = block.language === 'sh' ? runShell(block) : runNode(block);
      // A ```text output block after it: the lines it prints.
      if (block.output !== undefined) expect(missingOutput(block.output, stdout)).toBeUndefined();
      const expected = expectedOutput(block.code);
      if (expected.length > 0)
        expect(
          stdout
            .trimEnd()
            .split('\n')
            .map((line) => line.trim()),
        ).toEqual(expected);
    },
    120_000,
  );
});
