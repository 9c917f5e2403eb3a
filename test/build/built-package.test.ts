// `npm run build` output works on its own: compiled to a scratch folder inside the
// checkout (so dependencies resolve, while bin/ptc.js keeps running from source rather
// than from a dist/), then imported and used for real,
// including a run_code program whose sandbox process starts from the compiled files.
import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(root, '.build-test'), { recursive: true });
const outDir = mkdtempSync(join(root, '.build-test', 'out-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('the built package', () => {
  it('compiles with declarations and runs a run_code program from the compiled files', () => {
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir], { cwd: root, stdio: 'pipe' });
    execFileSync(process.execPath, [join(root, 'scripts/copy-assets.mjs'), outDir], { cwd: root });
    for (const file of ['src/index.js', 'src/index.d.ts', 'sandbox/sandbox-process.js', 'sdk-gen/index.d.ts', 'src/cli/main.js']) {
      expect(existsSync(join(outDir, file))).toBe(true);
    }
    const script = join(outDir, 'smoke.mjs');
    writeFileSync(
      script,
      `import { createToolRuntime } from ${JSON.stringify(pathToFileURL(join(outDir, 'src/index.js')).href)};
import { shopTools } from ${JSON.stringify(pathToFileURL(join(outDir, 'examples/shop/shop-tools.js')).href)};
const rt = createToolRuntime({ mode: 'ptc' });
for (const tool of shopTools()) rt.register(tool);
const result = await rt.execute({ callId: 'c1', name: 'run_code', arguments: { description: 'Count EU customers', code: 'return (await tools.list_customers({ region: "EU" })).length;' } });
console.log(JSON.stringify(result.value));
await rt.close();
`,
    );
    const stdout = execFileSync(process.execPath, ['--no-node-snapshot', script], { encoding: 'utf8', timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({ logs: [], result: 16 });
  });
});
