// `ptc run --preview`: the demo shop's reads run, its write (flag_order) does not; the
// plan of writes is printed with its token.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/run-cli.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-cli-preview-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cli = runCli;

const PROGRAM = `
const [customer] = await tools.list_customers({ region: 'EU' });
const first = (await tools.list_orders({ customerId: customer.id })).slice(0, 2);
for (const o of first) await tools.flag_order({ orderId: o.id, reason: 'late delivery' });
const again = await tools.list_orders({ customerId: customer.id });
console.log(\`\${first.length} flagged\`);
return again.filter((o) => (o.flags ?? []).length > 0).length;
`;

it('prints the plan: the writes not run, the reads that ran, the token; nothing was flagged', async () => {
  const file = join(dir, 'flag.ts');
  await writeFile(file, PROGRAM);
  const run = await cli('run', file, '--preview');
  expect(run.err).toBe('');
  expect(run.code).toBe(0);
  expect(run.out).toMatch(/^2 flagged\n0\n/); // the second read saw no flag: nothing was written
  expect(run.out).toMatch(
    /Plan: 2 write\(s\), not run yet \(3 read\(s\) ran\):\n {2}#3 tools\.flag_order\(\{"orderId":"[^"]+","reason":"late delivery"\}\)\n {2}#4 tools\.flag_order/,
  );
  expect(run.out).toMatch(
    /Plan token \(commit it to run exactly these writes; expires [^)]+\): ptcplan1\.[\w-]+\.[\w-]+\n$/,
  );
  const json = await cli('run', file, '--preview', '--json');
  const value = (JSON.parse(json.out) as { value: { plan: { writes: { name: string }[]; reads: number } } }).value;
  expect(value.plan.writes.map((w) => w.name)).toStrictEqual(['flag_order', 'flag_order']);
  expect(value.plan.reads).toBe(3);
}, 60_000);
