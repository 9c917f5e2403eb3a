// The package as a user gets it: a copy of this checkout (its tracked and new files, as a
// clone has them) is packed with `npm pack` — whose `prepack` bundles and builds — and the
// tarball is installed into a new CommonJS project outside the checkout (`npm install
// --prefer-offline`: from the npm cache `npm ci` filled, the registry only for what it lacks). There, every package.json export loads by
// name with `import`, `require('ptc-runtime')` works, `npx ptc --version` and `npx ptc demo`
// run, the README's quick start runs as `.mts`, a TypeScript file type-checks under
// `module: nodenext` and `moduleResolution: bundler`, and an older Node is told it needs Node 24.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'ptc-pack-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  exports: Record<string, unknown>;
};
const specifiers = Object.keys(pkg.exports)
  .filter((key) => key !== './package.json')
  .map((key) => (key === '.' ? 'ptc-runtime' : `ptc-runtime/${key.slice(2)}`));

const app = join(scratch, 'app');
// npm and npx run with this Node first on PATH, as `source scripts/ensure-node.sh` leaves a shell.
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: [dirname(process.execPath), process.env['PATH'] ?? ''].join(delimiter),
  NODE_OPTIONS: '',
  npm_config_loglevel: 'warn',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};
const npm = (args: string[], cwd: string): string =>
  execFileSync('npm', args, { cwd, env, encoding: 'utf8', timeout: 300_000, stdio: 'pipe' });
const node = (args: string[], nodePath = process.execPath) =>
  spawnSync(nodePath, args, { cwd: app, env, encoding: 'utf8', timeout: 120_000 });

let packed: { files: string[]; size: number };

beforeAll(() => {
  // A clone: the files git knows of (tracked, or new and not ignored), dependencies linked.
  const clone = join(scratch, 'clone');
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    try {
      cpSync(join(root, file), join(clone, file));
    } catch {
      // a file deleted in the working tree but not yet in the index
    }
  }
  symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'), 'dir');
  const report = JSON.parse(npm(['pack', '--json', '--pack-destination', scratch], clone).replace(/^[^[]*/s, '')) as {
    filename: string;
    size: number;
    files: { path: string }[];
  }[];
  packed = { files: report[0]!.files.map((f) => f.path), size: report[0]!.size };

  // A new project, as `npm init -y` (npm 11) makes it: CommonJS, said so with "type".
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'my-app', version: '1.0.0', private: true, type: 'commonjs' }),
  );
  // Beside it, the version this checkout uses of @types/node and of `ai` (the optional peer of ptc-runtime/adapters/ai-sdk).
  const version = (name: string): string =>
    `${name}@${(JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version}`;
  npm(['install', '--prefer-offline', join(scratch, report[0]!.filename), version('@types/node'), version('ai')], app);
}, 600_000);

describe('the packed package, installed into a new project', () => {
  it('holds only what users run: compiled JS, declarations, the sandbox bundle, demo data, README, LICENSE', () => {
    expect(packed.files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'bin/ptc.js',
        'dist/src/index.js',
        'dist/src/index.d.ts',
        'dist/src/require-entry.cjs',
        'dist/sandbox/sandbox-process.bundle.cjs',
        'dist/src/demo/shop-data.json',
      ]),
    );
    const unexpected = packed.files.filter(
      (f) =>
        !/^(LICENSE|README\.md|package\.json|bin\/ptc\.js)$/.test(f) &&
        !/^dist\/(src|sdk-gen|sandbox)\/.*(\.js|\.d\.ts|\.cjs|shop-data\.json)$/.test(f),
    );
    expect(unexpected).toEqual([]);
    expect(packed.files.filter((f) => /bundle-(guest-prelude|sandbox-process|file-url)\.(js|d\.ts)$/.test(f))).toEqual(
      [],
    );
    expect(packed.size).toBeLessThan(1_000_000);
  });

  it('import: every export entry loads; a run_code program runs from the installed files', () => {
    writeFileSync(
      join(app, 'esm.mjs'),
      `const exported = {};
for (const specifier of ${JSON.stringify(specifiers)}) exported[specifier] = Object.keys(await import(specifier)).length;
const { createToolRuntime } = await import('ptc-runtime');
const { shopTools } = await import('ptc-runtime/demo');
const rt = createToolRuntime({ mode: 'ptc' });
for (const tool of shopTools()) rt.register(tool);
const result = await rt.execute({ callId: 'c1', name: 'run_code', arguments: { description: 'Count EU customers', code: 'return (await tools.list_customers({ region: "EU" })).length;' } });
await rt.close();
const typed = createToolRuntime({ mode: 'ptc', typecheck: 'error' });
for (const tool of shopTools()) typed.register(tool);
const refused = await typed.execute({ callId: 'c2', name: 'run_code', arguments: { description: 'Mistyped', code: 'const n: number = "x"; return n;' } });
await typed.close();
console.log(JSON.stringify({ exported, value: result.value, typecheck: refused.error?.info?.diagnostics }));
`,
    );
    const run = node(['esm.mjs']);
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as { exported: Record<string, number>; value: unknown; typecheck: unknown };
    for (const specifier of specifiers)
      expect([specifier, (report.exported[specifier] ?? 0) > 0]).toStrictEqual([specifier, true]);
    expect(report.value).toEqual({ logs: [], result: 16 });
    expect(report.typecheck).toEqual(["1:7 Type 'string' is not assignable to type 'number'."]);
  });

  it('its optional dependency koffi (per-thread scheduling calls, sandbox/libc-calls.ts) comes with it and loads from its files', () => {
    writeFileSync(
      join(app, 'koffi.cjs'),
      `const { createRequire } = require('node:module');
const fromSandbox = createRequire(require.resolve('ptc-runtime/sandbox'));
console.log(typeof fromSandbox('koffi').load);
`,
    );
    const run = node(['koffi.cjs']);
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('function');
  });

  it("require('ptc-runtime') works in CommonJS", () => {
    writeFileSync(
      join(app, 'cjs.cjs'),
      `const { createToolRuntime, defineTool } = require('ptc-runtime');
const { createMcpServer } = require('ptc-runtime/mcp');
async function main() {
  const rt = createToolRuntime({ mode: 'ptc' });
  rt.register(defineTool({ name: 'add', description: 'Adds.', parameters: { a: { type: 'number', required: true }, b: { type: 'number', required: true } },
    output: { schema: { type: 'number' }, render: (_args, sum) => [{ type: 'text', text: String(sum) }] }, execute: ({ a, b }) => a + b }));
  const result = await rt.execute({ callId: 'c1', name: 'run_code', arguments: { description: 'Sum', code: 'return await tools.add({ a: 2, b: 3 });' } });
  console.log(JSON.stringify({ value: result.value, mcp: typeof createMcpServer }));
  await rt.close();
}
main();
`,
    );
    const run = node(['cjs.cjs']);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ value: { logs: [], result: 5 }, mcp: 'function' });
  });

  it("the README's quick start runs as quick-start.mts there (as .ts it would be CommonJS)", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain('`quick-start.mts`');
    const quickStart = /## Quick start[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)![1]!;
    writeFileSync(join(app, 'quick-start.mts'), quickStart);
    writeFileSync(join(app, 'quick-start.ts'), quickStart);
    const run = node(['quick-start.mts']);
    expect(run.stderr).toBe('');
    const shown = [...quickStart.matchAll(/console\.log\([^\n]*\); \/\/ ([^\n]+)/g)].map((m) => m[1]!.trim());
    expect(
      run.stdout
        .trim()
        .split('\n')
        .map((line) => line.trim()),
    ).toEqual(shown);
    // Why the README says .mts: a .ts file of a "type": "commonjs" package is loaded as CommonJS.
    expect(node(['quick-start.ts']).stderr).toMatch(
      /Cannot use import statement outside a module|ERR_REQUIRE_ASYNC_MODULE|await is only valid/,
    );
  });

  it('npx ptc --version and npx ptc demo', () => {
    const npx = (...args: string[]): string =>
      execFileSync('npx', ['--no-install', ...args], {
        cwd: app,
        env,
        encoding: 'utf8',
        timeout: 120_000,
        stdio: 'pipe',
      });
    expect(npx('ptc', '--version').trim()).toBe(pkg.version);
    const demo = npx('ptc', 'demo');
    expect(demo).toContain('Both answers agree.');
  });

  it('type-checks under module nodenext and under moduleResolution bundler', () => {
    writeFileSync(
      join(app, 'typed.mts'),
      `import { createToolRuntime, defineTool, type ToolResult } from 'ptc-runtime';
import { createMcpServer } from 'ptc-runtime/mcp';
import { toAnthropicTools } from 'ptc-runtime/adapters/anthropic';
import { shopTools } from 'ptc-runtime/demo';
const rt = createToolRuntime({ mode: 'ptc' });
rt.register(defineTool({ name: 'echo', description: 'Echoes.', parameters: { text: { type: 'string', required: true } },
  output: { schema: { type: 'string' }, render: (_args, text) => [{ type: 'text', text }] }, execute: ({ text }) => text.toUpperCase() }));
for (const tool of shopTools()) rt.register(tool);
const result: ToolResult = await rt.execute({ callId: 'c1', name: 'echo', arguments: { text: 'hi' } });
export const shown = [result.isError, toAnthropicTools(rt.schemas()).length, typeof createMcpServer];
`,
    );
    // Both settings in one process through the installed TypeScript's compiler API: each is a
    // program of its own, as two `tsc --noEmit --strict` runs would be, and its errors are read
    // for the consumer's file and every declaration of ptc-runtime (as tsc without
    // skipLibCheck reports them), not for all of @types/node and `ai` (two tsc runs: 20 s).
    writeFileSync(
      join(app, 'check-types.mjs'),
      `import ts from 'typescript';
const settings = {
  'module nodenext': { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
  'moduleResolution bundler': { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler },
};
const report = {};
for (const [name, options] of Object.entries(settings)) {
  const program = ts.createProgram(['typed.mts'], { noEmit: true, strict: true, target: ts.ScriptTarget.ES2023, types: ['node'], ...options });
  const ours = program.getSourceFiles().filter((file) => !file.fileName.includes('/node_modules/') || file.fileName.includes('/node_modules/ptc-runtime/'));
  const diagnostics = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(), ...ours.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)])];
  report[name] = { declarations: ours.filter((file) => file.fileName.includes('/node_modules/ptc-runtime/')).length, errors: diagnostics.map((d) => (d.file ? d.file.fileName + ': ' : '') + ts.flattenDiagnosticMessageText(d.messageText, ' ')) };
}
console.log(JSON.stringify(report));
`,
    );
    const run = node(['check-types.mjs']);
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as Record<string, { declarations: number; errors: string[] }>;
    for (const name of ['module nodenext', 'moduleResolution bundler']) {
      expect([name, report[name]?.errors]).toEqual([name, []]);
      // The package's declarations were part of the check, not skipped.
      expect(report[name]?.declarations).toBeGreaterThan(20);
    }
  });

  it('on Node < 24: "ptc-runtime needs Node >= 24 (found 20.x)" from the CLI, import and require', () => {
    // The machine's own Node when it is older (it is 20 where the project's Node comes from
    // .tools/); otherwise this Node, told it is 20.
    const system = spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' });
    const old = system.status === 0 && Number(/^v(\d+)/.exec(system.stdout)?.[1]) < 24 ? '/usr/bin/node' : undefined;
    writeFileSync(
      join(app, 'pretend-20.cjs'),
      "Object.defineProperty(process.versions, 'node', { value: '20.19.0' });\n",
    );
    const withOld = (args: string[]) =>
      old === undefined ? node(['--require', './pretend-20.cjs', ...args]) : node(args, old);
    const found = /ptc-runtime needs Node >= 24 \(found 20\.\d+\.\d+\)/;
    const cli = withOld([join(app, 'node_modules/ptc-runtime/bin/ptc.js'), '--version']);
    expect([cli.status, cli.stderr]).toEqual([2, expect.stringMatching(found)]);
    const imported = withOld(['--input-type=module', '-e', "await import('ptc-runtime')"]);
    expect(imported.stderr).toMatch(found);
    expect(imported.stderr).not.toMatch(/No native build/);
    const required = withOld(['-e', "require('ptc-runtime')"]);
    expect(required.stderr).toMatch(found);
  });
});
