// The real executable, spawned as a user would run it (`node --no-node-snapshot
// bin/ptc.js ...` from the repository root): one spawn per exit status and per way in
// (file, stdin, a TS --tools module loaded by Node itself). The detailed cases run
// in-process in main.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

interface Spawned {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

function ptc(args: readonly string[], stdin = ''): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    // A clean NODE_OPTIONS: the child must not inherit jest's VM-module flags.
    const child = spawn(process.execPath, ['--no-node-snapshot', 'bin/ptc.js', ...args], {
      cwd: root,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(stdin);
  });
}

const oneLine = (text: string): void => expect(text).toMatch(/^ptc: [^\n]+\n$/);

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-bin-'));
  await writeFile(join(dir, 'greet.ts'), 'console.log("greeting");\nreturn await tools.greet({ name: "Grace" });\n');
  await writeFile(
    join(dir, 'type-error.ts'),
    'const n: string = (await tools.list_customers({})).length;\nreturn n;\n',
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('bin/ptc.js', () => {
  it('ptc demo exits 0 and its two answers agree', async () => {
    const run = await ptc(['demo']);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toContain('Both answers agree.');
    // The durable half: a pause with three pending calls, a resume in a fresh runtime.
    expect(run.out).toMatch(/The program is paused \(run [0-9a-f-]+\): 3 tool calls await/);
    expect(run.out).toContain('"O00046: DENIED"');
    expect(run.out).toContain('4 reads (once each, before the pause), 2 flag_order (the approved ones)');
    const answerRow = run.out.split('\n').find((line) => line.startsWith('answer'));
    const [, native, programmatic] = answerRow!.split('|').map((cell) => cell.trim());
    expect(JSON.parse(native!)).toEqual(JSON.parse(programmatic!));
    expect(JSON.parse(native!)).toMatchObject({ carrier: expect.any(String), late: expect.any(Number) });
  });

  it('ptc run - --json reads the program from stdin and prints one JSON object', async () => {
    const run = await ptc(['run', '-', '--json'], 'console.log("hi");\nreturn { answer: 42 };\n');
    expect(run.code).toBe(0);
    expect(run.err).toBe('');
    expect(run.out.endsWith('\n')).toBe(true);
    expect(run.out.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(run.out)).toEqual({
      isError: false,
      value: { logs: ['hi'], result: { answer: 42 } },
      content: [{ type: 'text', text: 'hi\n{\n  "answer": 42\n}' }],
      error: null,
    });
  });

  it('ptc run exits 1 when the program throws', async () => {
    const run = await ptc(['run', '-'], 'throw new Error("stdin program failed");\n');
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toMatch(/run_code failed \(exception\): .*stdin program failed/);
  });

  it('ptc run file --tools loads a TypeScript module with Node itself', async () => {
    const run = await ptc(['run', join(dir, 'greet.ts'), '--tools', fixture('array-tools.ts')]);
    expect(run).toEqual({ code: 0, out: 'greeting\nhello, Grace\n', err: '' });
  });

  it("ptc sdk --tools (a function module) --agent prints that agent's SDK", async () => {
    const run = await ptc(['sdk', '--tools', fixture('function-tools.ts'), '--agent', 'reader']);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/ count_words: Tool</);
    expect(run.out).not.toMatch(/wipe_disk/);
  });

  it('ptc schemas --mode ptc --format anthropic prints run_code only', async () => {
    const run = await ptc(['schemas', '--mode', 'ptc', '--format', 'anthropic']);
    expect(run.code).toBe(0);
    const tools = JSON.parse(run.out) as { name: string; input_schema: { properties: object } }[];
    expect(tools.map((t) => t.name)).toEqual(['run_code']);
    expect(Object.keys(tools[0]!.input_schema.properties)).toEqual(['description', 'code']);
  });

  it('ptc check exits 1 with line:column message', async () => {
    const run = await ptc(['check', join(dir, 'type-error.ts')]);
    expect(run).toEqual({ code: 1, out: "1:7 Type 'number' is not assignable to type 'string'.\n", err: '' });
  });

  it('usage errors exit 2 with one line on stderr: a bad flag value, no command', async () => {
    const badFlag = await ptc(['run', join(dir, 'greet.ts'), '--timeout-ms', 'abc']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.out).toBe('');
    oneLine(badFlag.err);
    expect(badFlag.err).toMatch(/--timeout-ms must be a positive integer, got "abc"/);

    const none = await ptc([]);
    expect(none.code).toBe(2);
    oneLine(none.err);
  });
  it('a .ts tools module that breaks the type-stripping rules: a usage error that says what to change', async () => {
    await writeFile(join(dir, 'orders.ts'), 'export const orders = 1;\n');
    await writeFile(
      join(dir, 'no-extension.ts'),
      "import { orders } from './orders';\nexport default () => { void orders; };\n",
    );
    await writeFile(join(dir, 'with-enum.ts'), 'enum Color { Red }\nexport default () => { void Color.Red; };\n');
    await writeFile(
      join(dir, 'erasable.ts'),
      "import { orders } from './orders.ts';\nexport default (rt: unknown): void => { void rt; void orders; };\n",
    );
    const noExtension = await ptc(['sdk', '--tools', join(dir, 'no-extension.ts')]);
    expect(noExtension.code).toBe(2);
    oneLine(noExtension.err);
    expect(noExtension.err).toMatch(
      /Cannot find module .*orders' .*\(a relative import names its file with the extension, e\.g\. "\.\/orders\.ts"\)/u,
    );
    const withEnum = await ptc(['sdk', '--tools', join(dir, 'with-enum.ts')]);
    expect(withEnum.code).toBe(2);
    oneLine(withEnum.err);
    expect(withEnum.err).toMatch(
      /enum is not supported in strip-only mode \(a \.ts tools module runs with Node's type stripping: no enum, namespace, parameter properties or import =\)/u,
    );
    expect(await ptc(['sdk', '--tools', join(dir, 'erasable.ts')])).toMatchObject({ code: 0, err: '' });
  });

  it('a tools module that does not parse: a usage error with its file, line and column', async () => {
    await writeFile(join(dir, 'comma.mjs'), 'export default [\n  { name: "x",, },\n];\n');
    await writeFile(join(dir, 'outer.mjs'), 'import { inner } from "./inner.mjs";\nexport default [inner];\n');
    await writeFile(join(dir, 'inner.mjs'), 'export const inner = {\n  a: 1\n  b: 2,\n};\n');
    await writeFile(join(dir, 'missing-value.mts'), 'const limit: number = ;\nexport default [];\n');
    const cases: [string, RegExp][] = [
      ['comma.mjs', /--tools .*comma\.mjs: could not load the module: .*comma\.mjs:2:15: Unexpected token ','$/u],
      // The error is in a file the module imports: that file is named.
      ['outer.mjs', /--tools .*outer\.mjs: could not load the module: .*inner\.mjs:3:3: Unexpected identifier 'b'$/u],
      ['missing-value.mts', /could not load the module: .*missing-value\.mts:1:23: Expression expected$/u],
    ];
    for (const [file, expected] of cases) {
      const run = await ptc(['sdk', '--tools', join(dir, file)]);
      expect(run.code).toBe(2);
      oneLine(run.err);
      expect(run.err.trimEnd()).toMatch(expected);
    }
  });

  it('a tools module that throws, or imports what is not there: the place in the user’s own file', async () => {
    const index = JSON.stringify(join(root, 'src/index.ts'));
    // A folder whose name has parentheses, as a stack frame prints it inside its own.
    await mkdir(join(dir, 'tools (copy)'));
    await writeFile(
      join(dir, 'tools (copy)', 'throws.mjs'),
      'const ready = false;\nif (!ready) throw new Error("no API key");\n',
    );
    await writeFile(join(dir, 'throws-text.mjs'), 'throw "no API key";\n');
    await writeFile(
      join(dir, 'registers-async.mjs'),
      'import { readFile } from "node:fs/promises";\nexport default () =>\n  Promise.all([1].map(async () => JSON.parse(await readFile("/no/such/file", "utf8"))));\n',
    );
    await writeFile(join(dir, 'imports-thrower.mjs'), 'import "./thrower.cjs";\nexport default [];\n');
    await writeFile(join(dir, 'thrower.cjs'), 'exports.a = 1;\n\nnull.call();\n');
    await writeFile(join(dir, 'parses.mjs'), 'export default [\n  ...JSON.parse("{broken"),\n];\n');
    await writeFile(
      join(dir, 'lost-file.mts'),
      '// was: import { orders } from "./orders.mts";\n\nimport { orders } from "./orders.mts";\nexport default orders;\n',
    );
    await writeFile(join(dir, 'lost-package.mjs'), 'import x from "no-such-package-zz/tools";\nexport default [x];\n');
    // The error is raised inside defineTool: the place is the user's call, not the package's code.
    await writeFile(
      join(dir, 'registers.mts'),
      `import { defineTool } from ${index};\nexport default (rt: { register(tool: unknown): void }) => {\n  rt.register(\n    defineTool({ name: 'two words', description: 'x', parameters: {}, execute: () => 1 } as never),\n  );\n};\n`,
    );
    const cases: [string, RegExp][] = [
      ['tools (copy)/throws.mjs', /could not load the module: .*tools \(copy\)\/throws\.mjs:2:19: no API key$/u],
      ['throws-text.mjs', /could not load the module: no API key$/u],
      // The error comes from Node (no frame of its own), through an async function of the user's: that function.
      ['registers-async.mjs', /registering the tools failed: .*registers-async\.mjs:3:46: ENOENT/u],
      ['imports-thrower.mjs', /could not load the module: .*thrower\.cjs:3:6: Cannot read properties of null/u],
      ['parses.mjs', /could not load the module: .*parses\.mjs:2:11: .*JSON/u],
      ['lost-file.mts', /could not load the module: .*lost-file\.mts:3:24: Cannot find module .*orders\.mts'/u],
      [
        'lost-package.mjs',
        /could not load the module: .*lost-package\.mjs:1:15: Cannot find package 'no-such-package-zz'/u,
      ],
      ['registers.mts', /registering the tools failed: .*registers\.mts:4:5: defineTool\("two words"\): name must/u],
    ];
    const runs = await Promise.all(cases.map(([file]) => ptc(['sdk', '--tools', join(dir, file)])));
    for (const [index, [, expected]] of cases.entries()) {
      const run = runs[index]!;
      expect(run.code).toBe(2);
      oneLine(run.err);
      expect(run.err.trimEnd()).toMatch(expected);
    }
  });
});
