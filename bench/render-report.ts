// Re-renders a saved `npm run -s bench -- --json` result as the text table or as the
// Markdown table of the README's Performance section; rows are derived again from the raw sections, so a
// saved run can be shown with the current row definitions.
// Run: node bench/render-report.ts bench.json [--markdown]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { allRows, formatHeader, formatMarkdown, formatTable, type BenchReport } from './bench-rows.ts';

const { values, positionals } = parseArgs({
  options: { markdown: { type: 'boolean', default: false } },
  allowPositionals: true,
});
const file = positionals[0];
if (file === undefined) {
  process.stderr.write(
    'usage: node bench/render-report.ts <bench.json> [--markdown]   (bench.json from `npm run -s bench -- --json`)\n',
  );
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
const rows = allRows(report.sections);
const header = `${formatHeader(report.machine, report.seconds, report.quick)}, ${report.date}`;
process.stdout.write(`${header}\n${values.markdown === true ? `\n${formatMarkdown(rows)}` : formatTable(rows)}\n`);
