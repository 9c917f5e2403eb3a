// The README's API quick start, run exactly as written (only the package specifier
// is pointed at the sources), in its own Node process.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

function readmeExample(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const match = /<!-- readme-example:start -->\s*```ts\n([\s\S]*?)```\s*<!-- readme-example:end -->/.exec(readme);
  if (match === null) throw new Error('README.md has no readme-example block');
  return match[1]!;
}

describe('README API quick start', () => {
  it('runs as written and prints what its comments say', () => {
    const source = readmeExample().replace(
      /from 'ptc-runtime'/g,
      `from '${pathToFileURL(join(root, 'src/index.ts')).href}'`,
    );
    const file = join(mkdtempSync(join(tmpdir(), 'ptc-readme-')), 'example.ts');
    writeFileSync(file, source);
    const stdout = execFileSync(
      process.execPath,
      ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', file],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(stdout).toBe("[ 'run_code' ]\n{ type: 'text', text: 'DENIED\\nLisbon' }\n");
  });
});
