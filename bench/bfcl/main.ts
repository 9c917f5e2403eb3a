// npm run bench:bfcl -- --data <dir> [--json] [--category base,miss_func] [--limit N]
//   [--filler file.json] [--model anthropic:<id> | openai:<id> [--repeat N] [--cache on|off]]
//   npm run bench:bfcl -- --render report.json   (a saved --json report as Markdown)
// Runs every BFCL multi-turn entry in <dir> natively and through run_code, grades both as
// upstream does, and prints one JSON object (--json) or a Markdown table per category.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadDataset } from './data.ts';
import { useFillerFile } from './filler.ts';
import { liveModel } from './live-model.ts';
import { markdownReport, spreadReport } from './report.ts';
import { type LiveMode, runBenchmark } from './run-bench.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    json: { type: 'boolean', default: false },
    category: { type: 'string' },
    limit: { type: 'string' },
    filler: { type: 'string' },
    model: { type: 'string' },
    repeat: { type: 'string', default: '1' },
    cache: { type: 'string', default: 'on' },
    render: { type: 'string' },
  },
});
if (values.render !== undefined) {
  // A saved --json report as the Markdown table of bench/README.md.
  process.stdout.write(`${markdownReport(JSON.parse(readFileSync(values.render, 'utf8')))}\n`);
  process.exit(0);
}
if (values.data === undefined) {
  process.stderr.write(
    'usage: npm run bench:bfcl -- --data <dir> [--json] [--category c1,c2] [--limit N] [--filler f.json] [--model anthropic:<id>|openai:<id> [--repeat N] [--cache on|off]]\n',
  );
  process.exit(2);
}
if (values.filler !== undefined) useFillerFile(values.filler);
const dataset = loadDataset(
  values.data,
  values.category === undefined ? {} : { categories: values.category.split(',') },
);
const limit = values.limit === undefined ? Number.POSITIVE_INFINITY : Number(values.limit);
const perCategory = new Map<string, number>();
const entries = dataset.entries.filter((e) => {
  const n = perCategory.get(e.category) ?? 0;
  perCategory.set(e.category, n + 1);
  return n < limit;
});
const spec = values.model;
const repeat = Number(values.repeat);
if (!Number.isInteger(repeat) || repeat < 1 || (spec === undefined && repeat !== 1)) {
  process.stderr.write('--repeat wants a whole number of 1 or more, and goes with --model\n');
  process.exit(2);
}
if (values.cache !== 'on' && values.cache !== 'off') {
  process.stderr.write(`--cache wants on or off, got ${values.cache}\n`);
  process.exit(2);
}
const cache = values.cache === 'on';
const started = performance.now();
// A live model answers differently from run to run: each repetition is a whole run of both modes.
const reports = [];
for (let run = 0; run < repeat; run++)
  reports.push(
    await runBenchmark(dataset, entries, {
      ...(spec === undefined
        ? {}
        : {
            // native: one call per reply (the provider's parallel calls off); nativeParallel: the model decides.
            model: (mode: LiveMode) =>
              liveModel(spec, { cache, ...(mode === 'ptc' ? {} : { parallelToolCalls: mode === 'nativeParallel' }) }),
          }),
      onProgress: (done, total) => {
        if (done % 50 === 0 || done === total) process.stderr.write(`bfcl: ${done}/${total} entries\n`);
      },
    }),
  );
const [report] = reports as [(typeof reports)[number]];
const full = {
  ...report,
  ...(repeat > 1 ? { repetitions: reports } : {}),
  ...(spec === undefined ? {} : { cache }),
  model: spec ?? 'oracle',
  tokenizer: 'o200k_base (js-tiktoken)',
  filler: values.filler === undefined ? 'synthetic (same shapes and sizes as upstream)' : values.filler,
  wallSeconds: Math.round((performance.now() - started) / 100) / 10,
};
process.stdout.write(
  values.json ? `${JSON.stringify(full)}\n` : `${spec === undefined ? markdownReport(full) : spreadReport(reports)}\n`,
);
