// npm run -s bench:tau2 -- --data <dir> [--json] [--tasks 0,1,2] [--limit N] [--modes native,ptc] [--transcript]
// Runs the τ²-bench retail tasks in <dir> with scripted models natively (one call per
// request, then independent reads together) and through run_code, grades each final
// database as upstream does, and prints one JSON object (--json) or readable tables.
import { parseArgs } from 'node:util';
import type { Message } from './model.ts';
import { MODES, type Mode, markdownReport } from './report.ts';
import { loadData, runBenchmark } from './run-bench.ts';
import { loadTasks } from './tasks.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    json: { type: 'boolean', default: false },
    tasks: { type: 'string' },
    limit: { type: 'string' },
    modes: { type: 'string' },
    transcript: { type: 'boolean', default: false },
  },
});
if (values.data === undefined) {
  process.stderr.write(
    'usage: npm run bench:tau2 -- --data <tau2-retail dir> [--json] [--tasks id,id] [--limit N] [--modes native,nativeParallel,ptc] [--transcript]\n',
  );
  process.exit(2);
}
const modes = (values.modes?.split(',') ?? [...MODES]) as Mode[];
for (const m of modes)
  if (!(MODES as readonly string[]).includes(m)) {
    process.stderr.write(`unknown mode ${m} (modes: ${MODES.join(', ')})\n`);
    process.exit(2);
  }
const wanted = values.tasks?.split(',');
let data: ReturnType<typeof loadData>;
let tasks: ReturnType<typeof loadTasks>;
try {
  data = loadData(values.data);
  tasks = loadTasks(values.data).filter((t) => wanted === undefined || wanted.includes(t.id));
  const missing = (wanted ?? []).filter((id) => !tasks.some((t) => t.id === id));
  if (missing.length > 0) throw new Error(`--tasks: no task ${missing.join(', ')} in ${values.data}/tasks.json`);
} catch (e) {
  process.stderr.write(`bench:tau2: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(2);
}
if (values.limit !== undefined) tasks = tasks.slice(0, Number(values.limit));
const started = performance.now();
const report = await runBenchmark(data, tasks, {
  modes,
  ...(values.transcript
    ? {
        onTranscript: (mode: Mode, id: string, messages: readonly Message[]) =>
          process.stderr.write(`\n=== task ${id}, ${mode}\n${messages.map((m) => JSON.stringify(m)).join('\n')}\n`),
      }
    : {}),
  onProgress: (done, total) => {
    if (done % 38 === 0 || done === total) process.stderr.write(`tau2: ${done}/${total} task runs\n`);
  },
});
const full = {
  ...report,
  model: 'oracle',
  tokenizer: 'o200k_base (js-tiktoken)',
  wallSeconds: Math.round((performance.now() - started) / 100) / 10,
};
process.stdout.write(values.json ? `${JSON.stringify(full)}\n` : `${markdownReport(full)}\n`);
