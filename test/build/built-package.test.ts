// `npm run build` output works on its own: compiled to a scratch folder inside the
// checkout, laid out as an installed package (package.json + dist/, dependencies
// resolved from this checkout's node_modules), then imported by its name from a
// separate folder through every entry of package.json "exports" — no `ptc-source`
// condition, so only the compiled files can answer — and used for real, including a
// run_code program whose sandbox process starts from the compiled files.
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(root, '.build-test'), { recursive: true });
const scratch = mkdtempSync(join(root, '.build-test', 'out-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type ExportTarget = string | { readonly types: string; readonly import: string };
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, ExportTarget> };

describe('the built package', () => {
  it('compiles with declarations; every export entry loads by the package name; a run_code program runs from the compiled files', () => {
    const installed = join(scratch, 'app', 'node_modules', 'ptc-runtime');
    const outDir = join(installed, 'dist');
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir], {
      cwd: root,
      stdio: 'pipe',
    });
    execFileSync(process.execPath, [join(root, 'scripts/copy-assets.mjs'), outDir], { cwd: root });
    cpSync(join(root, 'package.json'), join(installed, 'package.json'));
    symlinkSync(join(root, 'node_modules'), join(installed, 'node_modules'), 'dir');

    const specifiers: string[] = [];
    for (const [key, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') continue;
      for (const file of [target.types, target.import])
        expect([key, existsSync(join(installed, file))]).toStrictEqual([key, true]);
      specifiers.push(key === '.' ? 'ptc-runtime' : `ptc-runtime/${key.slice(2)}`);
    }
    expect(specifiers).toEqual(
      expect.arrayContaining(['ptc-runtime', 'ptc-runtime/sandbox', 'ptc-runtime/sdk-gen', 'ptc-runtime/demo']),
    );

    // Its own package scope, so `ptc-runtime` is not a self-reference to this checkout.
    writeFileSync(
      join(scratch, 'app', 'package.json'),
      JSON.stringify({ name: 'smoke-app', private: true, type: 'module' }),
    );
    const script = join(scratch, 'app', 'smoke.mjs');
    writeFileSync(
      script,
      `const specifiers = ${JSON.stringify(specifiers)};
const exported = {};
for (const specifier of specifiers) exported[specifier] = Object.keys(await import(specifier)).length;
const { createToolRuntime } = await import('ptc-runtime');
const { shopTools } = await import('ptc-runtime/demo');
const { createSandbox } = await import('ptc-runtime/sandbox');
const { generateSdk, checkProgram } = await import('ptc-runtime/sdk-gen');
const rt = createToolRuntime({ mode: 'ptc' });
for (const tool of shopTools()) rt.register(tool);
const result = await rt.execute({ callId: 'c1', name: 'run_code', arguments: { description: 'Count EU customers', code: 'return (await tools.list_customers({ region: "EU" })).length;' } });
await rt.close();
// typecheck runs in a worker loaded from the compiled sdk-gen.
const typed = createToolRuntime({ mode: 'ptc', typecheck: 'error' });
for (const tool of shopTools()) typed.register(tool);
const refused = await typed.execute({ callId: 'c2', name: 'run_code', arguments: { description: 'Mistyped', code: 'const n: number = "x"; return n;' } });
await typed.close();
const sandbox = createSandbox({ isolation: 'in-process', poolSize: 0 });
const outcome = await sandbox.run({ code: 'return 6 * 7;', toolNames: [], hostCall: async () => ({ ok: true, valueJson: 'null' }) });
await sandbox.close();
const sdk = generateSdk([{ name: 'echo', description: 'Echoes', parameters: { type: 'object', properties: { text: { type: 'string' } } } }]);
const diagnostics = checkProgram(sdk, 'await tools.echo({ text: 1 });').map((d) => d.code);
console.log(JSON.stringify({ exported, value: result.value, outcome, diagnostics, typecheck: refused.error?.info }));
`,
    );
    const stdout = execFileSync(process.execPath, ['--no-node-snapshot', script], {
      cwd: join(scratch, 'app'),
      encoding: 'utf8',
      timeout: 60_000,
    });
    const report = JSON.parse(stdout) as {
      exported: Record<string, number>;
      value: unknown;
      outcome: unknown;
      diagnostics: number[];
      typecheck: unknown;
    };
    for (const specifier of specifiers)
      expect([specifier, report.exported[specifier]! > 0]).toStrictEqual([specifier, true]);
    expect(report.value).toEqual({ logs: [], result: 16 });
    expect(report.outcome).toEqual({ ok: true, logs: [], result: 42 });
    expect(report.diagnostics).toEqual([2322]);
    expect(report.typecheck).toEqual({
      kind: 'compile',
      line: 1,
      column: 7,
      diagnostics: ["1:7 Type 'string' is not assignable to type 'number'."],
      logs: [],
    });
  });
});
