// Fencing of durable-run claims on PostgreSQL (a throwaway cluster, no mock): two
// runtimes on one database, each with its own journal (its own claims session, as two
// hosts have). A run's claims session is terminated while its second call runs: the run
// stops there (the call's body sees its signal abort, naming the claim; the program
// makes no further call; none of its rows after the loss is written), and the other
// runtime resumes it: the first call is answered from the journal, the interrupted one
// runs again (the documented at-least-once retry, same idempotency key) with a larger
// fencing token, and the third runs once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createToolRuntime,
  defineTool,
  FenceLostError,
  openPostgresJournal,
  type PostgresJournal,
  type ToolRuntime,
} from '../../src/index.ts';
import { startPostgres, type PostgresCluster } from '../support/postgres-cluster.ts';

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

/** Polls `check` every 10 ms until it holds; fails naming `what` after 30 s. */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not so within 30 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface Body {
  readonly host: string;
  readonly n: number;
  readonly key: string;
  readonly token: number | undefined;
  ended?: string;
  reason?: unknown;
}

/** A runtime on its own journal; `step` records each body, and on host a holds step 2 until its signal aborts (bounded). */
function host(url: string, name: string, bodies: Body[]): { rt: ToolRuntime; journal: PostgresJournal } {
  const journal = openPostgresJournal(url);
  const rt = createToolRuntime({ journal, mode: 'ptc', sandbox: { poolSize: 1 } });
  rt.register(
    defineTool({
      name: 'step',
      description: 'Does step n.',
      parameters: { n: { type: 'integer', required: true } },
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      execute: async ({ n }, exec) => {
        const body: Body = { host: name, n, key: exec.idempotencyKey, token: exec.fencingToken };
        bodies.push(body);
        if (name === 'a' && n === 2)
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 20_000); // without fencing the signal never aborts
            exec.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
          });
        body.ended = exec.signal.aborted ? String((exec.signal.reason as Error).message) : 'done';
        body.reason = exec.signal.reason;
        return `${name} did ${n}`;
      },
    }),
  );
  return { rt, journal };
}

/** The run a lost-claim failure names. */
const stoppedRunId = (message: string): string => /the claim on durable run (\S+) /u.exec(message)?.[1] ?? '(none)';

describe('fencing of durable-run claims (PostgreSQL)', () => {
  it('a run whose claim is lost stops at once and writes nothing more; another host resumes it, re-running only the interrupted call', async () => {
    const url = await cluster.createDatabase('fence_claims');
    const bodies: Body[] = [];
    const a = host(url, 'a', bodies);
    const b = host(url, 'b', bodies);
    try {
      const program = 'const done = []; for (const n of [1, 2, 3]) done.push(await tools.step({ n })); return done;';
      const first = a.rt.execute({
        callId: 'run-1',
        name: 'run_code',
        arguments: { description: 'three steps', code: program },
      });
      await until('step 2 started on a', () => bodies.some((x) => x.host === 'a' && x.n === 2));
      const holders = (await cluster.sql(
        `SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database
         WHERE l.locktype = 'advisory' AND l.granted AND d.datname = 'fence_claims'`,
      )) as { pid: number }[];
      expect(holders).toHaveLength(1); // the claims session of a
      await cluster.sql(`SELECT pg_terminate_backend(${holders[0]!.pid})`);

      const stopped = await first;
      expect(stopped.isError).toBe(true);
      expect(stopped.error?.info).toMatchObject({
        kind: 'abort',
        fenceLost: expect.stringMatching(/^the claim on durable run /u),
      });
      expect(stopped.error?.message).toMatch(
        /the claim on durable run \S+ \(fencing token \d+\) was lost: .*The run was stopped here and not ended/su,
      );
      const stepTwoOfA = bodies.find((x) => x.host === 'a' && x.n === 2)!;
      expect(stepTwoOfA.ended).toMatch(/the claim on durable run \S+ \(fencing token \d+\) was lost/u);
      expect(stepTwoOfA.reason).toBeInstanceOf(FenceLostError);

      // Whatever a still writes for the run is refused, naming the lost claim.
      const runId = stoppedRunId(stopped.error?.message ?? '');
      await expect(
        a.journal.append([
          { type: 'run/end', callId: 'run-1', name: 'run_code', runId, status: 'failed', at: Date.now() },
        ]),
      ).rejects.toThrow(
        /the claim on durable run \S+ \(fencing token \d+\) was lost: .*; its run\/end row was not written \(this process no longer writes run /u,
      );

      // b sees the run interrupted and resumes it.
      const [run] = await b.rt.runs({ status: 'interrupted' });
      expect(run?.callId).toBe('run-1');
      expect(run?.runId).toBe(runId);
      const resumed = await b.rt.resume(run!.runId);
      expect(resumed.isError).toBe(false);
      expect((resumed.value as { result?: unknown }).result).toEqual(['a did 1', 'b did 2', 'b did 3']);

      expect(bodies.map((x) => `${x.host}${x.n}`)).toEqual(['a1', 'a2', 'b2', 'b3']);
      expect(bodies[1]!.key).toBe(bodies[2]!.key); // the retry keeps its idempotency key
      expect(typeof bodies[0]!.token).toBe('number');
      expect(bodies[1]!.token).toBe(bodies[0]!.token);
      expect(bodies[2]!.token).toBeGreaterThan(bodies[1]!.token!);

      // a wrote nothing for the run after its loss: step 2's only result is b's.
      const results = (await b.journal.query({ type: 'tool/result' }))
        .map((entry) => entry.event as { callId: string; result: { value?: unknown } })
        .filter((event) => event.callId === 'run-1:ptc:2');
      expect(results.map((event) => event.result.value)).toEqual(['b did 2']);
    } finally {
      await Promise.all([a.rt.close(), b.rt.close()]);
      await Promise.all([a.journal.close(), b.journal.close()]);
    }
  }, 120_000);
});
