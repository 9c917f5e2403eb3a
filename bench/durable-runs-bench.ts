// Durable runs: the cost of pausing and resuming. A 10-call program (nine reads, then one
// approval-gated write) run uninterrupted (approval allows) vs paused at the write and
// resumed (the nine reads answered from the journal, the write runs); and the journal
// bytes one paused run adds (JSONL). JSONL and SQLite, process isolation, median and p90
// of several rounds. Figures only; no test depends on them.
// Run: node --no-node-snapshot bench/durable-runs-bench.ts [rounds, default 15]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ask,
  createToolRuntime,
  defineTool,
  openSqliteJournal,
  type ApprovalService,
  type Journal,
  type PausedRun,
  type ToolRuntime,
} from '../src/index.ts';
import { summarize } from './stats.ts';

const rounds = Number(process.argv[2] ?? 15);
const dir = mkdtempSync(join(tmpdir(), 'ptc-durable-bench-'));
const CODE = `let sum = 0;
for (let i = 0; i < 9; i++) sum += (await tools.read({ n: i })).n;
const w = await tools.write({ v: sum });
return w.v;`;

function runtime(journal: Journal | string, approval: ApprovalService): ToolRuntime {
  const rt = createToolRuntime({ journal, mode: 'ptc', approval, sandbox: { poolSize: 2 } });
  rt.register(
    defineTool({
      name: 'read',
      description: 'read',
      parameters: { n: { type: 'number', required: true } },
      output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'ok' }] },
      execute: ({ n }) => ({ n }),
    }),
  );
  rt.register(
    defineTool({
      name: 'write',
      description: 'write (gated)',
      parameters: { v: { type: 'number', required: true } },
      output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'ok' }] },
      execute: ({ v }) => ({ v }),
    }),
  );
  rt.on('tools/pre-execute', async (exec, next) => (exec.name === 'write' ? ask() : next()));
  return rt;
}

const stores: Record<string, (name: string) => { journal: Journal | string; file: string }> = {
  JSONL: (name) => ({ journal: join(dir, `${name}.jsonl`), file: join(dir, `${name}.jsonl`) }),
  SQLite: (name) => ({ journal: openSqliteJournal(join(dir, `${name}.sqlite`)), file: join(dir, `${name}.sqlite`) }),
};

const rows: string[] = [];
for (const [storeName, open] of Object.entries(stores)) {
  const straight = runtime(open('straight').journal, { request: async () => 'allowed-once' });
  const { journal, file } = open('paused');
  const pausing = runtime(journal, { request: async () => 'pause' });
  // Warm both (sandbox processes, isolates, esbuild).
  await straight.execute({ callId: 'warm', name: 'run_code', arguments: { description: 'warm', code: CODE } });
  const warm = await pausing.execute({
    callId: 'warm',
    name: 'run_code',
    arguments: { description: 'warm', code: CODE },
  });
  const warmRun = (warm.value as unknown as { paused: PausedRun }).paused;
  await pausing.resume(warmRun.runId, { [warmRun.pending[0]!.callId]: 'approve' });
  const uninterrupted: number[] = [];
  const pause: number[] = [];
  const resume: number[] = [];
  const bytes: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    let t = performance.now();
    await straight.execute({ callId: `s${round}`, name: 'run_code', arguments: { description: 'sum', code: CODE } });
    uninterrupted.push(performance.now() - t);
    const before = storeName === 'JSONL' ? statSync(file).size : 0;
    t = performance.now();
    const paused = await pausing.execute({
      callId: `p${round}`,
      name: 'run_code',
      arguments: { description: 'sum', code: CODE },
    });
    pause.push(performance.now() - t);
    if (storeName === 'JSONL') bytes.push(statSync(file).size - before);
    const run = (paused.value as unknown as { paused: PausedRun }).paused;
    t = performance.now();
    const final = await pausing.resume(run.runId, { [run.pending[0]!.callId]: 'approve' });
    resume.push(performance.now() - t);
    if (final.isError || (final.value as { result: number }).result !== 36) throw new Error('wrong result');
  }
  await straight.close();
  await pausing.close();
  const fmt = (name: string, s: number[]): string => {
    const { p50, p90 } = summarize(s);
    return `${storeName.padEnd(6)} ${name.padEnd(40)} p50 ${p50.toFixed(1).padStart(7)} ms  p90 ${p90.toFixed(1).padStart(7)} ms`;
  };
  rows.push(fmt('10-call program, uninterrupted', uninterrupted));
  rows.push(fmt('same program, until paused (9 calls)', pause));
  rows.push(fmt('resume (9 answered from journal + 1)', resume));
  if (bytes.length > 0)
    rows.push(`${storeName.padEnd(6)} journal bytes per paused run (start to pause): p50 ${summarize(bytes).p50}`);
}
rmSync(dir, { recursive: true, force: true });
console.log(
  `durable runs, ${rounds} rounds each (node ${process.version}, load ${(await import('node:os')).loadavg()[0]!.toFixed(1)})`,
);
for (const row of rows) console.log(row);
