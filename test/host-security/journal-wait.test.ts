// A journal store that never acknowledges an append cannot keep a run pending past its
// caller's abort or its wall limit: whichever write of the run is stuck (its write-ahead
// record, run/start, a nested call or result, run/end), the run ends with an error naming
// the unanswered store, within a short grace, and the host serves the next run.
import { describe, expect, it } from '@jest/globals';
import { createMemoryJournal, defineTool } from '../../src/index.ts';
import type { Journal, JournalEvent } from '../../src/journal/journal.ts';
import { ptcRuntimes, runCode, runValue } from '../ptc/helpers.ts';

const runtime = ptcRuntimes();

const echo = defineTool({
  name: 'echo',
  description: 'Echoes a word.',
  parameters: { word: { type: 'string', required: true } },
  output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
  execute: (args) => args.word,
});

/** A working store, except that the first append with an event `stuck` picks is never acknowledged. */
function storeStuckAt(stuck: (event: JournalEvent) => boolean): { journal: Journal; reached: Promise<void> } {
  const inner = createMemoryJournal();
  let reach: () => void = () => {};
  const reached = new Promise<void>((resolve) => (reach = resolve));
  let hung = false;
  const journal: Journal = {
    append: (events) => {
      if (!hung && events.some(stuck)) {
        hung = true;
        reach();
        return new Promise<void>(() => {});
      }
      return inner.append(events);
    },
    read: () => inner.read(),
  };
  return { journal, reached };
}

const WRITES: ReadonlyArray<readonly [string, (event: JournalEvent) => boolean]> = [
  ['its write-ahead record', (e) => e.type === 'tool/call' && e.name === 'run_code'],
  ['run/start', (e) => e.type === 'run/start'],
  ['a nested call', (e) => e.type === 'tool/call' && e.name === 'echo'],
  ["a nested call's result", (e) => e.type === 'tool/result' && e.name === 'echo'],
  ['run/end', (e) => e.type === 'run/end'],
];

const PROGRAM = `const a = await tools.echo({ word: 'one' }); return a;`;

// The store-wide timeout is far away: only the run's own bounds can end these runs in time.
// A short wait grace keeps each case quick; one case below shows the 5 s default.
const GRACE_MS = 400;
const FAR = { journalAppendTimeoutMs: 3_600_000, journalWaitGraceMs: GRACE_MS };

describe('a journal store that never acknowledges an append', () => {
  for (const [write, stuck] of WRITES) {
    it(`ends the run at its caller's abort when ${write} is stuck`, async () => {
      const { journal, reached } = storeStuckAt(stuck);
      const rt = runtime({ journal, ...FAR });
      rt.register(echo);
      const caller = new AbortController();
      void reached.then(() => caller.abort());
      const result = await runCode(rt, PROGRAM, { signal: caller.signal });
      expect(result.isError).toBe(true);
      // The run_code call's own record: the store is named; a stuck write inside the run
      // ends it as cancelled, which is what its caller asked for.
      expect(`${result.error!.code} ${result.error!.message}`).toMatch(
        /journal append not acknowledged within 400 ms of the call's cancellation; the journal store did not answer|run_code failed \(abort\)|^ABORTED /,
      );
      await expect(reached).resolves.toBeUndefined();
    });

    it(`ends the run at its wall limit when ${write} is stuck`, async () => {
      const { journal, reached } = storeStuckAt(stuck);
      const rt = runtime({ journal, ...FAR, limits: { wallTimeMs: 1_000 } });
      rt.register(echo);
      const result = await runCode(rt, PROGRAM);
      await expect(reached).resolves.toBeUndefined();
      expect(result.isError).toBe(true);
      expect(`${result.error!.code} ${result.error!.message}`).toMatch(
        /journal append not acknowledged (by the run's wall deadline \(wallTimeMs 1000|within 400 ms of the call's cancellation)|run_code failed \(timeout\)/,
      );
    });
  }

  it('leaves the host serving: the next run on a working store completes', async () => {
    const { journal, reached } = storeStuckAt((e) => e.type === 'tool/result' && e.name === 'echo');
    const caller = new AbortController();
    void reached.then(() => caller.abort());
    const stuckRt = runtime({ journal, ...FAR });
    stuckRt.register(echo);
    expect((await runCode(stuckRt, PROGRAM, { signal: caller.signal })).isError).toBe(true);
    const rt = runtime({ journal: createMemoryJournal() });
    rt.register(echo);
    expect(runValue(await runCode(rt, PROGRAM, { callId: 'next' })).result).toBe('one');
  });

  it('gives a cancelled call 5 s by default before it stops waiting for the store', async () => {
    const { journal, reached } = storeStuckAt((e) => e.type === 'tool/call' && e.name === 'run_code');
    const rt = runtime({ journal, journalAppendTimeoutMs: 3_600_000 });
    rt.register(echo);
    const caller = new AbortController();
    void reached.then(() => caller.abort());
    const result = await runCode(rt, PROGRAM, { signal: caller.signal });
    expect(result.error?.message).toMatch(/journal append not acknowledged within 5000 ms of the call's cancellation/);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses journalWaitGraceMs %p, naming it', (bad) => {
    expect(() => runtime({ journal: createMemoryJournal(), journalWaitGraceMs: bad })).toThrow(
      /journalWaitGraceMs must be a positive integer/,
    );
  });
});
