// The peers section's rows (bench/bench-rows.ts): the per-call targets against the
// UTCP code-mode peer, judged per isolation mode, the marginal cost of a call beside them
// (bench/marginal-cost.ts), and a row that says how to install UTCP when it did not run.
// Runs on given summaries and a saved report (fixtures/peers-report.json): no UTCP
// install, no network, no timing.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import {
  allRows,
  type BenchReport,
  formatMarkdown,
  pairedNestedRatio,
  peerRows,
  UTCP_NESTED_CALL_TARGET,
} from '../../bench/bench-rows.ts';
import { marginalCost } from '../../bench/marginal-cost.ts';
import type { PeerName, PeerResult } from '../../bench/peer-bench.ts';
import type { Summary } from '../../bench/stats.ts';

const at = (p50: number): Summary => ({ n: 5, p50, p90: p50 * 1.2, min: p50 * 0.9, max: p50 * 1.5 });

function peer(name: PeerName, nestedUs: number, extra: Partial<PeerResult> = {}): PeerResult {
  return {
    peer: name,
    trivialMs: at(4),
    kbMs: at(7),
    nestedUs: at(nestedUs),
    trivialRatio: 1,
    kbRatio: 1,
    nestedRatio: 1,
    ...extra,
  };
}

const ran = { ran: true, note: '@utcp/code-mode 1.2.12 on Node v22' };

describe('peer rows against UTCP code-mode', () => {
  it('judges the sequential nested call per mode against its own bound', () => {
    const rows = peerRows(
      [
        peer('ptc-runtime (pool)', 240, { waitAllMs: at(125) }),
        peer('ptc-runtime (pool, in-process)', 70, { waitAllMs: at(115) }),
        peer('UTCP code-mode', 50, { waitAllMs: at(1070) }),
      ],
      ran,
    );
    const nested = rows.filter((r) => r.name.startsWith('UTCP: sequential nested call'));
    expect(nested.map((r) => [r.name.endsWith('in-process'), r.ratio, r.met])).toEqual([
      [false, '4.80×', false],
      [true, '1.40×', true],
    ]);
    expect(nested[0]!.target).toBe(`≤ ${UTCP_NESTED_CALL_TARGET.process}× UTCP (median and least-loaded)`);
    const waitAll = rows.find((r) => r.name === 'UTCP: Promise.all of 100 × wait(10 ms), ptc-runtime process');
    expect(waitAll?.ratio).toBe('0.12×');
    expect(rows.some((r) => r.value === 'not run')).toBe(false);
  });

  it('a bound is met at exactly the ratio the issue allows', () => {
    const rows = peerRows(
      [peer('ptc-runtime (pool)', 125), peer('ptc-runtime (pool, in-process)', 75), peer('UTCP code-mode', 50)],
      ran,
    );
    expect(rows.filter((r) => r.name.startsWith('UTCP: sequential')).map((r) => r.met)).toEqual([true, true]);
  });

  it('pairs rounds run back to back, so a load swing between rounds cancels out', () => {
    // Round 2 ran under load for both: its pair keeps the 2x, the p50s alone would not.
    const ours = peer('ptc-runtime (pool, in-process)', 200, { nestedRoundsUs: [100, 600, 110] });
    const theirs = peer('UTCP code-mode', 120, { nestedRoundsUs: [50, 300, 55] });
    expect(pairedNestedRatio(ours, theirs)).toBe(2);
    expect(ours.nestedUs.p50 / theirs.nestedUs.p50).not.toBe(2);
    const row = peerRows([peer('ptc-runtime (pool)', 240), ours, theirs], ran).find(
      (r) => r.name === 'UTCP: sequential nested call (1,000 calls), ptc-runtime in-process',
    );
    expect(row).toMatchObject({ ratio: '2.00×', met: false });
  });

  it('a median flattered by load does not meet the bound when the least-loaded rounds miss it', () => {
    // UTCP's second round ran under load: the paired median is 1.1x, its quietest round says 3x.
    const ours = peer('ptc-runtime (pool, in-process)', 150, { nestedRoundsUs: [150, 160, 155] });
    const theirs = peer('UTCP code-mode', 140, { nestedRoundsUs: [50, 400, 140] });
    const rows = peerRows(
      [peer('ptc-runtime (pool)', 240), ours, { ...theirs, nestedUs: { ...theirs.nestedUs, min: 50 } }],
      ran,
    );
    const row = rows.find((r) => r.name === 'UTCP: sequential nested call (1,000 calls), ptc-runtime in-process');
    expect(row?.ratio).toBe('1.11×');
    expect(row?.met).toBe(false);
  });

  it('says why UTCP did not run and how to install it, instead of leaving it out', () => {
    const note = 'not installed (--no-peer-install): install it with `bash bench/peers/install-utcp.sh`';
    const rows = peerRows([peer('ptc-runtime (pool)', 240), peer('worker per run', 130)], { ran: false, note });
    const utcp = rows.find((r) => r.name === 'UTCP @utcp/code-mode');
    expect(utcp).toMatchObject({ value: 'not run', baseline: note, met: null });
    expect(rows.filter((r) => r.name.startsWith('worker per run')).length).toBe(3);
  });
});

const MARGINAL_ROW = 'UTCP: marginal cost of a sequential nested call (2,000 − 1,000 calls), ptc-runtime';
const NESTED_ROW = 'UTCP: sequential nested call (1,000 calls), ptc-runtime';

/** A saved `--json` report of the peers section, as bench/render-report.ts reads one. */
function savedReport(): BenchReport {
  const file = fileURLToPath(new URL('./fixtures/peers-report.json', import.meta.url));
  return JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
}

describe('marginal cost of a sequential nested call', () => {
  it("pairs each round's 2,000-call run with its 1,000-call run, per call of the 1,000 more", () => {
    const cost = marginalCost([30, 90, 31], [50, 110, 52]);
    expect(cost?.marginalRoundsUs).toEqual([20, 20, 21]);
    expect(cost?.marginalUs).toMatchObject({ n: 3, p50: 20, min: 20, max: 21 });
    expect(cost?.marginalRunsMs.calls1000).toMatchObject({ p50: 31, min: 30 });
    expect(cost?.marginalRunsMs.calls2000).toMatchObject({ p50: 52, min: 50 });
  });

  it('takes the least-loaded figure from the fastest runs, not from the least round', () => {
    // Round 2's 1,000-call run met a load spike: its difference is negative.
    const cost = marginalCost([30, 80, 31], [50, 52, 51]);
    expect(cost?.marginalUs.min).toBe(-28);
    expect(cost?.marginalLeastLoadedUs).toBe(20);
  });

  it('is absent without a round', () => {
    expect(marginalCost([], [])).toBeUndefined();
  });
});

describe('the marginal rows of a saved report', () => {
  it('renders one per mode right under its 1,000-call row, with both ratios and no verdict', () => {
    const rows = allRows(savedReport().sections);
    const names = rows.map((r) => r.name);
    for (const mode of ['process', 'in-process']) {
      expect(names.indexOf(`${MARGINAL_ROW} ${mode}`)).toBe(names.indexOf(`${NESTED_ROW} ${mode}`) + 1);
    }
    const marginal = rows.filter((r) => r.name.startsWith(MARGINAL_ROW));
    expect(marginal.map((r) => [r.value, r.ratio, r.met])).toEqual([
      ['ptc-runtime p50 60.0 µs, least-loaded 64.0 µs', '3.75×', null],
      ['ptc-runtime p50 20.0 µs, least-loaded 12.0 µs', '1.25×', null],
    ]);
    expect(marginal[0]!.baseline).toContain(
      'UTCP p50 16.0 µs, least-loaded 16.0 µs; ratio of p50s 3.75×, of least-loaded 4.00×',
    );
    expect(marginal[1]!.baseline).toContain('ratio of p50s 1.25×, of least-loaded 0.75×; p50 of 3 rounds');
    expect(marginal.every((r) => r.target.startsWith('second view of the row above'))).toBe(true);
    const markdown = formatMarkdown(rows).split('\n');
    const line = markdown.find((l) => l.includes(`${MARGINAL_ROW} in-process`));
    expect(
      line?.endsWith(
        '| 1.25× | second view of the row above, the work each run does once cancelled out; not a verdict (issue 24 is judged above) |  |',
      ),
    ).toBe(true);
  });

  it('leaves the 1,000-call rows and their verdicts as they are without the marginal figures', () => {
    const report = savedReport();
    const withMarginal = allRows(report.sections);
    const before = (report.sections.peers ?? []).map(
      ({ marginalUs, marginalRoundsUs, marginalRunsMs, marginalLeastLoadedUs, ...rest }) => rest,
    );
    const withoutMarginal = allRows({ ...report.sections, peers: before });
    expect(withoutMarginal.some((r) => r.name.startsWith(MARGINAL_ROW))).toBe(false);
    expect(withMarginal.filter((r) => !r.name.startsWith(MARGINAL_ROW))).toEqual(withoutMarginal);
    expect(withoutMarginal.filter((r) => r.name.startsWith(NESTED_ROW)).map((r) => [r.ratio, r.met])).toEqual([
      ['3.00×', false],
      ['1.25×', true],
    ]);
  });

  it('shows no marginal row when UTCP has no marginal figures (ours alone have them)', () => {
    const report = savedReport();
    const peers = (report.sections.peers ?? []).map((p) => {
      if (p.peer !== 'UTCP code-mode') return p;
      const { marginalUs, marginalLeastLoadedUs, ...rest } = p;
      return rest;
    });
    expect(allRows({ ...report.sections, peers }).some((r) => r.name.startsWith(MARGINAL_ROW))).toBe(false);
  });
});
