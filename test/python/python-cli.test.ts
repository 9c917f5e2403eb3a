// `--guest python` on the CLI, and a runtime asked for the Python guest without Monty
// installed: one line saying what to install (a child process that cannot find it).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../support/run-cli.ts';

const BIN = fileURLToPath(new URL('../../bin/ptc.js', import.meta.url));
const PROBE = fileURLToPath(new URL('./fixtures/python-runtime-probe.ts', import.meta.url));
const HIDE_MONTY = fileURLToPath(new URL('./fixtures/hide-monty.ts', import.meta.url));

const cli = runCli;

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-python-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ptc --guest python', () => {
  it('ptc sdk prints the Python stubs of the demo tools', async () => {
    const { code, out } = await cli('sdk', '--guest', 'python');
    expect(code).toBe(0);
    expect(out).toContain(
      'def list_orders(*, customerId: str, from_: str | None = None, to: str | None = None) -> list[Order]:',
    );
    expect(out).toContain(
      'def list_customers(*, region: Literal["EU", "NA", "APAC"] | None = None) -> list[Customer]:',
    );
  });

  it("ptc check type-checks a Python program against the stubs with Monty's checker", async () => {
    const good = join(dir, 'good.py');
    await writeFile(good, 'orders = list_orders(customerId="C001")\nlen(orders)\n');
    expect(await cli('check', '--guest', 'python', good)).toEqual({ code: 0, out: '', err: '' });
    const bad = join(dir, 'bad.py');
    await writeFile(bad, 'x = 1\norders = list_orders(customer="C001")\norders[0]["nope"]\n');
    const { code, out } = await cli('check', '--guest', 'python', bad);
    expect(code).toBe(1);
    expect(out.split('\n').map((line) => line.split(']')[0])).toEqual([
      '2:10 error[missing-argument',
      '2:22 error[unknown-argument',
      '3:11 error[invalid-key',
      '',
    ]);
    const broken = join(dir, 'broken.py');
    await writeFile(broken, 'x = (\n');
    const syntax = await cli('check', '--guest', 'python', broken);
    expect(syntax.code).toBe(1);
    expect(syntax.out).toMatch(/SyntaxError/);
  });

  it('ptc run runs a Python program over the tools', async () => {
    const file = join(dir, 'eu.py');
    await writeFile(
      file,
      'eu = list_customers(region="EU")\nprint(f"{len(eu)} EU customers")\n[c["id"] for c in eu][:2]\n',
    );
    const { code, out } = await cli('run', '--guest', 'python', '--json', file);
    expect(code).toBe(0);
    const printed = JSON.parse(out) as { value: { logs: string[]; result: string[] } };
    expect(printed.value.logs).toEqual(['16 EU customers']);
    expect(printed.value.result).toHaveLength(2);
  });

  it('ptc schemas --mode ptc describes run_code for Python', async () => {
    const { code, out } = await cli('schemas', '--mode', 'ptc', '--guest', 'python');
    expect(code).toBe(0);
    const [runCode] = JSON.parse(out) as { description: string }[];
    expect(runCode!.description).toMatch(/^Run Python: /);
    expect(runCode!.description).toContain('def get_shipment(*, orderId: str) -> Shipment:');
  });
});

describe('without @pydantic/monty installed', () => {
  const node = (args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        ['--no-node-snapshot', '--conditions=ptc-source', '--import', HIDE_MONTY, ...args],
        { env: { ...process.env, NODE_OPTIONS: '' }, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr }),
      );
      child.stdin?.end(input ?? '');
    });

  it('createToolRuntime({ guest: "python" }) throws one line saying what to install', async () => {
    const { stdout } = await node([PROBE]);
    expect(JSON.parse(stdout)).toBe(
      "guest 'python' needs the optional peer dependency @pydantic/monty: npm install @pydantic/monty@0.0.18",
    );
  });

  it('ptc run --guest python: a usage error of one line; TypeScript runs as before', async () => {
    const python = await node([BIN, 'run', '--guest', 'python', '-'], 'list_customers()');
    expect(python.code).toBe(2);
    expect(python.stderr).toBe(
      "ptc: guest 'python' needs the optional peer dependency @pydantic/monty: npm install @pydantic/monty@0.0.18\n",
    );
    const ts = await node([BIN, 'run', '-'], 'return (await tools.list_customers({ region: "EU" })).length');
    expect([ts.code, ts.stdout.trim()]).toEqual([0, '16']);
  });
});
