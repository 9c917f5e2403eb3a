// npm run bench:bfcl -- --data <dir> [--json] [--category base,miss_func] [--limit N]
//   [--filler file.json] [--model anthropic:<id> | openai:<id>]
//   npm run bench:bfcl -- --render report.json   (a saved --json report as Markdown)
// Runs every BFCL multi-turn entry in <dir> natively and through run_code, grades both as
// upstream does, and prints one JSON object (--json) or a Markdown table per category.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadDataset } from './data.ts';
import { useFillerFile } from './filler.ts';
import { liveModel } from './live-model.ts';
import { markdownReport } from './report.ts';
import { runBenchmark } from './run-bench.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    json: { type: 'boolean', default: false },
    category: { type: 'string' },
    limit: { type: 'string' },
    filler: { type: 'string' },
    model: { type: 'string' },
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
    'usage: npm run bench:bfcl -- --data <dir> [--json] [--category c1,c2] [--limit N] [--filler f.json] [--model anthropic:<id>|openai:<id>]\n',
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
const started = performance.now();
const report = await runBenchmark(dataset, entries, {
  ...(spec === undefined ? {} : { model: () => liveModel(spec) }),
  onProgress: (done, total) => {
    if (done % 50 === 0 || done === total) process.stderr.write(`bfcl: ${done}/${total} entries\n`);
  },
});
const full = {
  ...report,
  model: spec ?? 'oracle',
  tokenizer: 'o200k_base (js-tiktoken)',
  filler: values.filler === undefined ? 'synthetic (same shapes and sizes as upstream)' : values.filler,
  wallSeconds: Math.round((performance.now() - started) / 100) / 10,
};
process.stdout.write(values.json ? `${JSON.stringify(full)}\n` : `${markdownReport(full)}\n`);
