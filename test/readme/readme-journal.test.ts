// The README's journal example (a composite tool, the JSONL journal, replay as a tree), run
// exactly as written (only the package specifier is pointed at the sources), in its own Node process.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('README journal example', () => {
  it('runs as written and prints what its comments say', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const match = /<!-- readme-journal:start -->\s*```ts\n([\s\S]*?)```\s*<!-- readme-journal:end -->/.exec(readme);
    if (match === null) throw new Error('README.md has no readme-journal block');
    const source = match[1]!.replace(/from 'ptc-runtime'/g, `from '${pathToFileURL(join(root, 'src/index.ts')).href}'`);
    const file = join(mkdtempSync(join(tmpdir(), 'ptc-readme-')), 'journal.ts');
    writeFileSync(file, source);
    const stdout = execFileSync(
      process.execPath,
      ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', file],
      { encoding: 'utf8', timeout: 60_000 },
    );
    // Each console.log line's trailing comment is what it prints.
    const expected = [...match[1]!.matchAll(/console\.log\([^\n]*\); \/\/ ([^\n]+)/g)].map((m) => m[1]!);
    expect(expected).toHaveLength(3);
    expect(
      stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.trim()),
    ).toEqual(expected);
  });
});
