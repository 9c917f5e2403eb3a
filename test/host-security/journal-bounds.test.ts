// What one program, or one host, may make the journal keep: bytes per run, bytes per
// runtime, an append the store never acknowledges, and how often one id appears in an
// event. Each bound is hit here; the host goes on serving.
import { describe, expect, it } from '@jest/globals';
import { createMemoryJournal, defineTool } from '../../src/index.ts';
import type { Journal } from '../../src/journal/journal.ts';
import { MAX_CALL_ID_LENGTH } from '../../src/pipeline/call-id-bound.ts';
import { ptcRuntimes, runCode } from '../ptc/helpers.ts';

const runtime = ptcRuntimes();

const sink = defineTool({
  name: 'sink',
  description: 'Takes a payload.',
  parameters: { payload: { type: 'string', required: true } },
  output: { schema: { type: 'number' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
  execute: (args) => args.payload.length,
});

describe('journal bounds', () => {
  it('refuses the nested call that would take a run over maxJournalBytesPerRun, and journals the run result', async () => {
    const journal = createMemoryJournal();
    const rt = runtime({ journal, maxJournalBytesPerRun: 200_000 });
    rt.register(sink);
    let bodies = 0;
    rt.on('tools/result', () => void (bodies += 1));
    const result = await runCode(
      rt,
      `const big = 'x'.repeat(10000); let n = 0;
       try { for (let i = 0; i < 1000; i++) { await tools.sink({ payload: big }); n++; } } catch (e) { return { n, code: e.code, message: e.message }; }
       return { n };`,
    );
    expect(result.isError).toBe(false);
    const value = result.value as { result: { n: number; code: string; message: string } };
    expect(value.result.code).toBe('SCHEDULER_FAILURE');
    expect(value.result.message).toContain('more than maxJournalBytesPerRun (200000)');
    // About 200 KB / 10 KB per call: the run stopped well before 1000 calls.
    expect(value.result.n).toBeGreaterThan(5);
    expect(value.result.n).toBeLessThan(25);
    const bytes = journal.lines.reduce((s, l) => s + l.length + 1, 0);
    expect(bytes).toBeLessThan(260_000);
    // The run's own result is journaled.
    expect(journal.lines.at(-1)).toContain('"type":"tool/result","callId":"rc","name":"run_code"');
    // The next run has its own budget.
    const again = await runCode(rt, `return await tools.sink({ payload: 'y'.repeat(1000) });`, { callId: 'rc2' });
    expect(again.value).toEqual({ logs: [], result: 1000 });
    expect(bodies).toBeGreaterThan(0);
  });

  it('refuses calls once the runtime has journaled maxJournalBytes, with a clear error', async () => {
    const journal = createMemoryJournal();
    const rt = runtime({ mode: 'both', journal, maxJournalBytes: 50_000 });
    rt.register(sink);
    const results = [];
    for (let i = 0; i < 10; i++)
      results.push(await rt.execute({ callId: `c${i}`, name: 'sink', arguments: { payload: 'z'.repeat(10_000) } }));
    expect(results.slice(0, 2).every((r) => !r.isError)).toBe(true);
    const refused = results.filter((r) => r.isError);
    expect(refused.length).toBeGreaterThan(5);
    expect(refused[0]!.error).toMatchObject({ code: 'SCHEDULER_FAILURE', info: { dispatched: false } });
    expect(refused[0]!.error!.message).toContain('more than maxJournalBytes (50000)');
    expect(journal.lines.join('\n').length).toBeLessThan(50_000);
  });

  it('fails a call whose append the store never acknowledges after journalAppendTimeoutMs', async () => {
    const hung: Journal = { append: () => new Promise(() => {}), read: async () => ({ events: [], warnings: [] }) };
    const rt = runtime({ mode: 'both', journal: hung, journalAppendTimeoutMs: 300 });
    rt.register(sink);
    const started = Date.now();
    const result = await rt.execute({ callId: 'h', name: 'sink', arguments: { payload: 'a' } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.error).toMatchObject({ code: 'SCHEDULER_FAILURE', info: { dispatched: false } });
    expect(result.error!.message).toContain('not acknowledged within 300 ms');
  });

  it('checks the bounds at creation', () => {
    expect(() => runtime({ journal: createMemoryJournal(), maxJournalBytesPerRun: 0 })).toThrow(
      /maxJournalBytesPerRun must be a positive integer/,
    );
    expect(() => runtime({ journal: createMemoryJournal(), journalAppendTimeoutMs: Number.POSITIVE_INFINITY })).toThrow(
      /journalAppendTimeoutMs must be a positive integer/,
    );
  });

  it(`refuses a top-level callId longer than ${MAX_CALL_ID_LENGTH} characters without echoing it`, async () => {
    const rt = runtime({ mode: 'both', journal: createMemoryJournal() });
    rt.register(sink);
    const long = 'q'.repeat(MAX_CALL_ID_LENGTH + 1);
    const refused = rt.execute({ callId: long, name: 'sink', arguments: { payload: 'a' } });
    await expect(refused).rejects.toThrow(/more than the 256 a call may have/);
    await expect(refused).rejects.not.toThrow(long);
    const ok = await rt.execute({ callId: 'q'.repeat(MAX_CALL_ID_LENGTH), name: 'sink', arguments: { payload: 'a' } });
    expect(ok.isError).toBe(false);
    await expect(rt.executeTurn([{ callId: long, name: 'sink', arguments: { payload: 'a' } }])).rejects.toThrow(
      /more than the 256/,
    );
  });
});
