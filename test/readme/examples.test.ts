// Every example the README lists runs with the one command it gives (`bash scripts/example.sh <file>`,
// here as the node command that script ends in) and exits 0.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './doc-blocks.ts';

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const examples = [...readme.matchAll(/`bash scripts\/example\.sh (examples\/[\w/.-]+\.ts)`/g)].map((m) => m[1]!);

describe('README examples', () => {
  it('lists at least four, each a file', () => {
    expect(examples.length).toBeGreaterThanOrEqual(4);
    for (const file of examples) expect([file, existsSync(join(root, file))]).toEqual([file, true]);
  });

  it.each(examples)(
    '%s runs from the clone',
    (file) => {
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env['ANTHROPIC_API_KEY']; // the live example then says it skips, and exits 0
      const stdout = execFileSync(
        process.execPath,
        ['--no-node-snapshot', '--conditions=ptc-source', '--disable-warning=ExperimentalWarning', file],
        { cwd: root, encoding: 'utf8', timeout: 90_000, env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      expect(stdout.trim().length).toBeGreaterThan(0);
    },
    120_000,
  );
});
