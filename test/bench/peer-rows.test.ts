// The peers section's rows (bench/bench-rows.ts): the per-call targets against the
// UTCP code-mode peer, judged per isolation mode, and a row that says how to install UTCP
// when it did not run. Runs on given summaries: no UTCP install, no network.
import { describe, expect, it } from '@jest/globals';
import { pairedNestedRatio, peerRows, UTCP_NESTED_CALL_TARGET } from '../../bench/bench-rows.ts';
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
