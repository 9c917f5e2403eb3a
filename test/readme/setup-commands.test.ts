// A newcomer's two set-up commands: README.md gives one that runs the demo and one that
// runs the checks, and CI (.ci/run) runs exactly that second command, so what the README
// promises is what CI proves.
import { readFileSync } from 'node:fs';
import { expect, it } from '@jest/globals';

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

/** The commands of the README's first shell block (comments cut). */
function setupCommands(): string[] {
  const block = /```sh[^\n]*\n([\s\S]*?)```/u.exec(read('README.md'))?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/#.*$/u, '').trim())
    .filter(Boolean);
}

it("the README's first block gives the two set-up commands: the demo, then the checks", () => {
  expect(setupCommands()).toStrictEqual(['bash scripts/demo.sh', 'bash scripts/test.sh']);
});

it("CI runs exactly the README's test command, and that command runs npm test", () => {
  const ci = read('.ci/run')
    .split('\n')
    .map((line) => line.trim());
  expect(ci).toContain(setupCommands()[1]);
  expect(read('scripts/test.sh').split('\n')).toContain('npm test');
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  // npm test runs the static checks and jest.
  for (const part of ['npm run lint', 'npm run typecheck', 'npm run docs:check', 'npm run jest']) {
    expect(scripts['test']).toContain(part);
  }
});
