// Crash-prone hostile programs run in a spawned Node process per case, in both
// isolation modes: if the sandbox lets a hostile host value or guest program take its
// host down, this shows as a non-zero exit code instead of killing the jest runner.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import type { RunOutcome } from '../../sandbox/types.ts';
import { expectFailure, expectNoHostLeak, expectResult } from './helpers.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/hostile-case.ts', import.meta.url));

interface Report {
  outcome: RunOutcome;
  after: RunOutcome;
  calls: string[];
  maxInFlight: number;
  rssGrowthMb: number;
  polluted: boolean;
}

function runFixture(
  name: string,
  mode: 'in-process' | 'process',
): Promise<{ code: number | null; report: Report; stderr: string }> {
  const env = { ...process.env };
  delete env['NODE_OPTIONS'];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--no-node-snapshot', '--no-warnings', FIXTURE, name, mode],
      { env, timeout: 90_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
        if (!line) {
          reject(
            new Error(
              `fixture ${name} (${mode}) printed no result; exit ${String(error?.code)}; stderr:\n${stderr.slice(0, 3000)}`,
            ),
          );
          return;
        }
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, report: JSON.parse(line.slice('RESULT '.length)) as Report, stderr });
      },
    );
  });
}

const TCE = { tce: true, name: 'ToolCallError', toolName: 'a', code: 'string', message: 'string' };

const cases: { name: string; check: (report: Report) => void }[] = [
  { name: 'host-sync-throw', check: (r) => expectResult(r.outcome, TCE) },
  { name: 'host-async-throw', check: (r) => expectResult(r.outcome, TCE) },
  { name: 'host-reject-proxy', check: (r) => expectResult(r.outcome, TCE) },
  { name: 'host-throw-proxy', check: (r) => expectResult(r.outcome, TCE) },
  { name: 'host-reject-recursive-getters', check: (r) => expectResult(r.outcome, TCE) },
  { name: 'host-reject-null', check: (r) => expectResult(r.outcome, TCE) },
  { name: 'guest-throw-proxy', check: (r) => expectFailure(r.outcome, ['exception']) },
  { name: 'guest-throw-recursive-getter', check: (r) => expectFailure(r.outcome, ['exception']) },
  { name: 'guest-throw-looping-getter', check: (r) => expectFailure(r.outcome, ['exception', 'cpu', 'timeout']) },
  { name: 'guest-throw-42', check: (r) => expectFailure(r.outcome, ['exception'], /42/) },
  { name: 'infinite-loop', check: (r) => expectFailure(r.outcome, ['cpu', 'timeout']) },
  { name: 'loop-after-await', check: (r) => expectFailure(r.outcome, ['cpu', 'timeout']) },
  { name: 'heap-bomb', check: (r) => expectFailure(r.outcome, ['memory']) },
  {
    name: 'wasm-memory-bomb',
    check: (r) => {
      expectFailure(r.outcome, ['memory', 'exception']);
      expect(r.rssGrowthMb).toBeLessThan(512);
    },
  },
  {
    name: 'resizable-buffer-bomb',
    check: (r) => {
      expectFailure(r.outcome, ['memory', 'exception']);
      expect(r.rssGrowthMb).toBeLessThan(512);
    },
  },
  {
    name: 'growable-sab-bomb',
    check: (r) => {
      expectFailure(r.outcome, ['memory', 'exception']);
      expect(r.rssGrowthMb).toBeLessThan(512);
    },
  },
  {
    name: 'intl-memory-bomb',
    check: (r) => {
      expectFailure(r.outcome, ['memory', 'exception']);
      expect(r.rssGrowthMb).toBeLessThan(512);
    },
  },
  {
    name: 'call-flood',
    check: (r) => {
      expectFailure(r.outcome, ['call-limit']);
      expect(r.calls.length).toBeLessThanOrEqual(100);
      expect(r.maxInFlight).toBeLessThanOrEqual(4);
    },
  },
  { name: 'abort-mid-call', check: (r) => expectFailure(r.outcome, ['abort']) },
  {
    name: 'call-after-end',
    check: (r) => {
      expectResult(r.outcome, 'done');
      expect(r.calls).toStrictEqual(['a']);
    },
  },
];

const CRASH_PRONE = new Set([
  'host-reject-proxy',
  'host-throw-proxy',
  'host-async-throw',
  'host-reject-recursive-getters',
  'guest-throw-looping-getter',
]);

describe('sandbox security: crash-prone programs in a separate host process', () => {
  for (const mode of ['in-process', 'process'] as const) {
    for (const hostile of cases) {
      if (mode === 'process' && !CRASH_PRONE.has(hostile.name)) continue;
      it(`${hostile.name} (${mode}): the host process survives and the sandbox still works`, async () => {
        const { code, report, stderr } = await runFixture(hostile.name, mode);
        expect({ code, stderr: code === 0 ? '' : stderr.slice(0, 2000) }).toStrictEqual({ code: 0, stderr: '' });
        hostile.check(report);
        expectNoHostLeak(report.outcome);
        expectResult(report.after, 2);
        expect(report.polluted).toBe(false);
      }, 120_000);
    }
  }
});
