// The `ptc` CLI run in-process through main(), its output kept: what a test of a command reads.
import { main } from '../../src/cli/main.ts';

/** What one CLI run printed and its exit code. */
export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs `ptc <argv>` in this process and returns its exit code and output. */
export async function runCli(...argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join(''), err: err.join('') };
}
