// npm run bench:bfcl -- --data <dir> [--json] [--category base,miss_func] [--limit N]
//   [--filler file.json] [--model anthropic:<id> | openai:<id>]
// Runs every BFCL multi-turn entry in <dir> natively and through run_code, grades both as
// upstream does, and prints one JSON object (--json) or a Markdown table per category.
import { parseArgs } from 'node:util';
import { createToolRuntime } from '../../src/index.ts';
import { loadDataset } from './data.ts';
import { useFillerFile } from './filler.ts';
import { liveModel } from './live-model.ts';
import { NativeOracle, PtcOracle } from './oracle.ts';
import { type Aggregate, aggregate, markdownReport } from './report.ts';
import { type EntryRun, MAX_STEPS, methodIndex, type RunContext, runEntry } from './run-entry.ts';
import { buildTools, type Session } from './tools.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    json: { type: 'boolean', default: false },
    category: { type: 'string' },
    limit: { type: 'string' },
    filler: { type: 'string' },
    model: { type: 'string' },
  },
});
if (values.data === undefined) {
  process.stderr.write(
    'usage: npm run bench:bfcl -- --data <dir> [--json] [--category c1,c2] [--limit N] [--model anthropic:<id>|openai:<id>]\n',
  );
  process.exit(2);
}
if (values.filler !== undefined) useFillerFile(values.filler);
const dataset = loadDataset(
  values.data,
  values.category === undefined ? {} : { categories: values.category.split(',') },
);
const limit = values.limit === undefined ? Number.POSITIVE_INFINITY : Number(values.limit);
const byCategory = new Map<string, typeof dataset.entries>();
for (const e of dataset.entries) {
  const list = byCategory.get(e.category) ?? [];
  if (list.length < limit) byCategory.set(e.category, [...list, e]);
}
const entries = [...byCategory.values()].flat();

const index = methodIndex(dataset.docs);
const context = (mode: 'native' | 'ptc'): RunContext => {
  const session: Session = { envs: new Map(), results: [] };
  return {
    rt: createToolRuntime(mode === 'native' ? { mode, sandbox: false } : { mode }),
    tools: buildTools(dataset.docs, session),
    session,
    dataset,
    index,
  };
};
const native = context('native');
const ptc = context('ptc');
const runs: { category: string; native: EntryRun; ptc: EntryRun }[] = [];
// The scripted native oracle sends one call per request, and two long-context turns hold
// more calls than upstream's 20-step limit, which exists to stop a looping live model.
const steps = { maxSteps: values.model === undefined ? Number.POSITIVE_INFINITY : MAX_STEPS };
const started = performance.now();
try {
  for (const [i, entry] of entries.entries()) {
    const nativeModel = values.model === undefined ? new NativeOracle() : liveModel(values.model);
    const ptcModel = values.model === undefined ? new PtcOracle() : liveModel(values.model);
    runs.push({
      category: entry.category,
      native: await runEntry(native, entry, nativeModel, steps),
      ptc: await runEntry(ptc, entry, ptcModel, steps),
    });
    if (!values.json && (i + 1) % 50 === 0) process.stderr.write(`${i + 1}/${entries.length} entries\n`);
  }
} finally {
  await Promise.all([native.rt.close(), ptc.rt.close()]);
}

const total = aggregate(runs);
const categories: Record<string, Aggregate> = {};
for (const c of byCategory.keys()) categories[c] = aggregate(runs.filter((r) => r.category === c));
const failures = runs.flatMap((r) =>
  (['native', 'ptc'] as const).flatMap((mode) =>
    r[mode].passed ? [] : [{ id: r[mode].id, mode, failure: r[mode].failure ?? '' }],
  ),
);
const report = {
  ...total,
  categories,
  failures,
  model: values.model ?? 'oracle',
  tokenizer: 'o200k_base (js-tiktoken)',
  wallSeconds: Math.round((performance.now() - started) / 100) / 10,
};
if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
else process.stdout.write(`${markdownReport(report)}\n`);
