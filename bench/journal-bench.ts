// What a journal costs per call: sequential direct calls (rt.execute) and one turn of
// concurrency-safe calls (rt.executeTurn), without a journal, with the JSONL file
// store, with the SQLite store and with the PostgreSQL store (a throwaway local cluster
// with fsync on, or the database of PTC_BENCH_PG_URL; a new database per round),
// interleaved, median of several rounds. A journaled call makes two durable appends
// (its write-ahead record and its result), so the figures are mostly fsync (and, for
// PostgreSQL, a round trip per batch: the calls of one tick are one INSERT). Figures
// only; no test depends on them.
// Run: node --no-node-snapshot bench/journal-bench.ts [calls per round, default 200]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolRuntime, openSqliteJournal, type Journal } from '../src/index.ts';
import type { ToolRuntime } from '../src/runtime/create-tool-runtime.ts';
import { benchTools } from './bench-runtime.ts';
import { summarize } from './stats.ts';
import { startPostgres } from '../test/support/postgres-cluster.ts';

const calls = Number(process.argv[2] ?? 200);
const rounds = 5;
const dir = mkdtempSync(join(tmpdir(), 'ptc-journal-bench-'));

function runtime(journal: Journal | string | undefined): ToolRuntime {
  const rt = createToolRuntime({ sandbox: false, ...(journal === undefined ? {} : { journal }) });
  // The bench's own trivial tool (a body that costs nothing), so the journal is what is timed.
  for (const tool of benchTools()) if (tool.name === 'noop') rt.register(tool);
  return rt;
}

// A server of our own with fsync on (the default), unless one is given.
const given = process.env.PTC_BENCH_PG_URL;
const cluster = given === undefined ? await startPostgres({ fast: false }) : undefined;
const pgDatabases: string[] = [];
for (let round = 0; round < rounds; round += 1) {
  if (cluster !== undefined) pgDatabases.push(await cluster.createDatabase(`bench_r${round}`));
  else pgDatabases.push(given!);
}

const stores: Record<string, (round: number) => Journal | string | undefined> = {
  'no journal': () => undefined,
  'JSONL file': (round) => join(dir, `r${round}.jsonl`),
  SQLite: (round) => openSqliteJournal(join(dir, `r${round}.sqlite`)),
  PostgreSQL: (round) => pgDatabases[round]!,
};

const median = (values: readonly number[]): number => summarize(values).p50;
const samples: Record<string, { direct: number[]; turn: number[] }> = {};
for (let round = 0; round < rounds; round += 1) {
  for (const [name, open] of Object.entries(stores)) {
    const rt = runtime(open(round));
    let t = performance.now();
    for (let i = 0; i < calls; i += 1) await rt.execute({ callId: `d${i}`, name: 'noop', arguments: { n: i } });
    const direct = ((performance.now() - t) * 1000) / calls;
    t = performance.now();
    await rt.executeTurn(
      Array.from({ length: calls }, (_, i) => ({ callId: `t${i}`, name: 'noop', arguments: { n: i } })),
    );
    const turn = ((performance.now() - t) * 1000) / calls;
    (samples[name] ??= { direct: [], turn: [] }).direct.push(direct);
    samples[name].turn.push(turn);
    await rt.close();
  }
}
rmSync(dir, { recursive: true, force: true });
await cluster?.stop();
console.log(
  `per call, median of ${rounds} rounds of ${calls} calls (node ${process.version}, load ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')})`,
);
console.log('| store | rt.execute, sequential | executeTurn, concurrency-safe |');
console.log('| --- | --- | --- |');
for (const [name, s] of Object.entries(samples))
  console.log(`| ${name} | ${median(s.direct).toFixed(1)} µs | ${median(s.turn).toFixed(1)} µs |`);
