// Runs a case of fixtures/host-case.ts in its own Node process with a capped heap and
// returns its report: a host that dies (or runs out of heap) fails the test with its
// exit code and stderr instead of taking the jest worker down.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from '@jest/globals';

const FIXTURE = fileURLToPath(new URL('./fixtures/host-case.ts', import.meta.url));

export interface BriefResult {
  readonly isError: boolean;
  readonly code: string | null;
  readonly kind: string | null;
  readonly bodySettled: boolean | null;
  readonly message: string;
  readonly messageLength: number;
  readonly contentLength: number;
  readonly result: unknown;
}

export interface HostReport<S> {
  readonly seen: S;
  readonly following: BriefResult;
  readonly heapBeforeMb: number;
  readonly heapAfterMb: number;
  readonly peakHeapMb: number;
  readonly rssAfterMb: number;
  readonly elapsedMs: number;
}

/** Runs `name` with `--max-old-space-size=maxOldSpaceMb`; rejects when the process printed no report (or ran past `timeoutMs`). */
export function runHostCase<S>(name: string, maxOldSpaceMb: number, timeoutMs = 140_000): Promise<HostReport<S>> {
  const env = { ...process.env };
  delete env['NODE_OPTIONS'];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--no-node-snapshot', '--expose-gc', '--no-warnings', `--max-old-space-size=${maxOldSpaceMb}`, FIXTURE, name],
      { env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
        if (line === undefined) {
          reject(
            new Error(
              `host case ${name} died or printed no report (exit ${String(error?.code ?? error?.signal)}); stderr:\n${stderr.slice(-3000)}`,
            ),
          );
          return;
        }
        resolve(JSON.parse(line.slice('RESULT '.length)) as HostReport<S>);
      },
    );
  });
}

/** The host kept its heap: after a forced GC it is back near where it started. */
export function expectHeapKept(report: HostReport<unknown>, slackMb = 16): void {
  expect(report.heapAfterMb - report.heapBeforeMb).toBeLessThan(slackMb);
}

/** An ordinary run after the hostile one still works. */
export function expectFollowingRunFine(report: HostReport<unknown>): void {
  expect(report.following).toMatchObject({ isError: false, result: 'still fine' });
}
