// Runs one marked TypeScript block of README.md as written (the package name pointed at
// the sources) and returns what it printed, with what its `// comment`s say it prints.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export function runReadmeBlock(root: string, marker: string): { printed: string[]; expected: string[] } {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const match = new RegExp(`<!-- ${marker}:start -->\\s*\`\`\`ts\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${marker}:end -->`).exec(
    readme,
  );
  if (match === null) throw new Error(`README.md has no ${marker} block`);
  const block = match[1]!;
  const source = block.replace(/from 'ptc-runtime'/g, `from '${pathToFileURL(join(root, 'src/index.ts')).href}'`);
  const file = join(mkdtempSync(join(tmpdir(), 'ptc-readme-')), `${marker}.ts`);
  writeFileSync(file, source);
  const stdout = execFileSync(process.execPath, ['--no-node-snapshot', '--disable-warning=ExperimentalWarning', file], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  // Each console.log line's trailing comment is what it prints.
  const expected = [...block.matchAll(/console\.log\([^\n]*\); \/\/ ([^\n]+)/g)].map((m) => m[1]!);
  const printed = stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.trim());
  return { printed, expected };
}
