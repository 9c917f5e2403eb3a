// npm run -s bench:tau2 -- --data <dir> [--json] [--tasks 0,1,2] [--limit N] [--modes native,ptc] [--transcript]
//   [--model anthropic:<id>|openai:<id> [--user-model <spec>] [--repeat N] [--cache on|off]]
// Runs the τ²-bench retail tasks in <dir> natively (one call per request, then independent
// reads together) and through run_code, with scripted models or a live one (and a simulated
// customer), grades each final database as upstream does, and prints one JSON object
// (--json) or readable tables.
import { parseArgs } from 'node:util';
import { liveModel } from '../bfcl/live-model.ts';
import { LIVE_LIMITS, liveTaskModel } from './live-model.ts';
import { liveMarkdownReport, liveSpread } from './live-report.ts';
import type { Message } from './model.ts';
import { MODES, type Mode, markdownReport, type Tau2Report } from './report.ts';
import { loadData, runBenchmark } from './run-bench.ts';
import { loadTasks } from './tasks.ts';

const USAGE =
  'usage: npm run bench:tau2 -- --data <tau2-retail dir> [--json] [--tasks id,id] [--limit N] [--modes native,nativeParallel,ptc] [--transcript] [--model anthropic:<id>|openai:<id> [--user-model <provider:id>] [--repeat N] [--cache on|off]]\n';
function fail(text: string): never {
  process.stderr.write(`bench:tau2: ${text}\n`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    json: { type: 'boolean', default: false },
    tasks: { type: 'string' },
    limit: { type: 'string' },
    modes: { type: 'string' },
    transcript: { type: 'boolean', default: false },
    model: { type: 'string' },
    'user-model': { type: 'string' },
    repeat: { type: 'string', default: '1' },
    cache: { type: 'string', default: 'on' },
  },
});
if (values.data === undefined) {
  process.stderr.write(USAGE);
  process.exit(2);
}
const modes = (values.modes?.split(',') ?? [...MODES]) as Mode[];
for (const m of modes)
  if (!(MODES as readonly string[]).includes(m)) fail(`unknown mode ${m} (modes: ${MODES.join(', ')})`);
const spec = values.model;
const repeat = Number(values.repeat);
if (!Number.isInteger(repeat) || repeat < 1 || (spec === undefined && repeat !== 1))
  fail('--repeat wants a whole number of 1 or more, and goes with --model');
if (values.cache !== 'on' && values.cache !== 'off') fail(`--cache wants on or off, got ${values.cache}`);
if (spec === undefined && (values['user-model'] !== undefined || values.cache !== 'on'))
  fail('--user-model and --cache go with --model');
const wanted = values.tasks?.split(',');
let data: ReturnType<typeof loadData>;
let tasks: ReturnType<typeof loadTasks>;
try {
  data = loadData(values.data);
  tasks = loadTasks(values.data).filter((t) => wanted === undefined || wanted.includes(t.id));
  const missing = (wanted ?? []).filter((id) => !tasks.some((t) => t.id === id));
  if (missing.length > 0) throw new Error(`--tasks: no task ${missing.join(', ')} in ${values.data}/tasks.json`);
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}
if (values.limit !== undefined) tasks = tasks.slice(0, Number(values.limit));
const cache = values.cache === 'on';
const live =
  spec === undefined
    ? undefined
    : { model: spec, cache, ...(values['user-model'] === undefined ? {} : { userModel: values['user-model'] }) };
// A misspelled provider fails here, before any task runs.
if (live !== undefined)
  for (const model of [live.model, live.userModel ?? live.model])
    try {
      liveModel(model);
    } catch (e) {
      fail(e instanceof Error ? e.message : String(e));
    }
const started = performance.now();
// A live model answers differently from run to run: each repetition is a whole run of every mode.
const runs: Tau2Report[] = [];
for (let run = 0; run < repeat; run++)
  runs.push(
    await runBenchmark(data, tasks, {
      modes,
      ...(live === undefined
        ? {}
        : { model: (mode: Mode, task) => liveTaskModel(live, mode, task), limits: LIVE_LIMITS }),
      ...(values.transcript
        ? {
            onTranscript: (mode: Mode, id: string, messages: readonly Message[]) =>
              process.stderr.write(`\n=== task ${id}, ${mode}\n${messages.map((m) => JSON.stringify(m)).join('\n')}\n`),
          }
        : {}),
      onProgress: (done, total) => {
        if (done % 38 === 0 || done === total)
          process.stderr.write(`tau2: ${done}/${total} task runs${repeat > 1 ? ` (run ${run + 1}/${repeat})` : ''}\n`);
      },
    }),
  );
const [first] = runs as [Tau2Report];
const full = {
  ...first,
  ...(live === undefined
    ? { model: 'oracle' }
    : {
        model: live.model,
        userModel: live.userModel ?? live.model,
        cache,
        repetitions: runs,
        spread: liveSpread(runs, modes),
      }),
  tokenizer: 'o200k_base (js-tiktoken)',
  wallSeconds: Math.round((performance.now() - started) / 100) / 10,
};
process.stdout.write(
  values.json
    ? `${JSON.stringify(full)}\n`
    : `${live === undefined ? markdownReport(full) : liveMarkdownReport(runs, modes)}\n`,
);
