// Commits at their edges: a stop found at the end undoes each applied write once; a call
// refused before its plan saw it stops a commit whose plan holds a call there (no later
// write runs out of its place); a write still running when a commit is cancelled is
// reported as of unknown outcome, never as undone; a read after a write sees that write.
import { describe, expect, it } from '@jest/globals';
import { defineTool, type JsonValue } from '../../src/index.ts';
import { ptcRuntimes } from '../ptc/helpers.ts';
import { untilArrived } from '../support/until-arrived.ts';
import { registerShop, runCall } from './fixtures/shop.ts';

const runtime = ptcRuntimes();

type Stopped = Error & {
  code: string;
  info: { commit: { undone: { seq: number }[]; notUndone: { seq: number; reason: string }[] } };
};

const until = (check: () => boolean): Promise<void> => untilArrived(check, [], 20_000);

describe('commit edges', () => {
  it('a commit that ends short of its plan undoes each applied write once', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    // The preview's stand-in leads to an email; the real refund does not.
    const code = `
      const r = await tools.refund({ order: 1, amount: 1 });
      if (r.refundId.startsWith('preview')) await tools.email({ to: 'a@x' });
      return 1;`;
    const { plan } = await rt.preview(runCall(code));
    expect(plan.writes.map((w) => w.name)).toStrictEqual(['refund', 'email']);
    const failed = (await rt.commit(plan.token).catch((e: unknown) => e)) as Stopped;
    expect(failed.code).toBe('PLAN_MISMATCH');
    expect(failed.message).toMatch(/ended without making planned write #2 tools\.email/);
    expect(shop.log).toStrictEqual(['refund:1', 'revert:1']);
    expect(failed.info.commit.undone.map((w) => w.seq)).toStrictEqual([1]);
    expect(failed.message.match(/Undone/g)).toHaveLength(1);
  }, 60_000);

  it('a call refused before its plan saw it (over the run’s retained bytes) stops the commit: no later write runs', async () => {
    const rt = runtime({ maxRetainedBytes: 1_000_000 });
    const log: string[] = [];
    const write = (
      name: string,
      parameters: Record<string, { type: 'string' | 'number'; required: true }>,
      holds: boolean,
    ) =>
      defineTool({
        name,
        description: name,
        parameters,
        output: { schema: { type: 'json' }, render: () => [] },
        effect: 'write',
        // Runs beside other calls: the quick read after it does not wait for it.
        isConcurrencySafe: () => true,
        revert: () => {
          log.push(`revert:${name}`);
        },
        // `upload` is still running (its large arguments held) when the program sends `debit`
        // just after a quick read; it ends a while later (a stopped commit waits for it).
        execute: () =>
          new Promise<JsonValue>((resolve) => {
            log.push(name);
            if (!holds) resolve({ ok: true });
            else setTimeout(() => resolve({ ok: true }), 3_000);
          }),
      });
    rt.register(write('upload', { blob: { type: 'string', required: true } }, true));
    rt.register(write('debit', { blob: { type: 'string', required: true } }, false));
    rt.register(write('credit', { amount: { type: 'number', required: true } }, false));
    rt.register(
      defineTool({
        name: 'ping',
        description: 'ping',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [] },
        effect: 'read',
        isConcurrencySafe: () => true,
        execute: () => 1,
      }),
    );
    // In the commit the read is answered from the record at once, while the upload runs:
    // the debit's arguments would take the run past its retained bytes, and it is refused
    // before its plan sees it. In the preview the upload's stand-in had long been answered.
    const code = `
      const read = tools.ping({});
      const a = tools.upload({ blob: 'x'.repeat(600000) });
      await read;
      const b = tools.debit({ blob: 'y'.repeat(600000) }).catch((e) => e.code);
      await Promise.race([a, b]);
      await tools.credit({ amount: 100 });
      return 1;`;
    const { plan } = await rt.preview(runCall(code));
    expect(plan.writes.map((w) => [w.seq, w.name])).toStrictEqual([
      [2, 'upload'],
      [3, 'debit'],
      [4, 'credit'],
    ]);
    const failed = (await rt.commit(plan.token).catch((e: unknown) => e)) as Stopped;
    expect(failed.code).toBe('PLAN_MISMATCH');
    expect(failed.message).toMatch(/call #3 tools\.debit was refused before it could run \(RETENTION_LIMIT\)/);
    expect(log).not.toContain('credit');
    expect(log).not.toContain('debit');
    // The upload, still running when the commit stopped, is reported as such, not undone.
    expect(failed.info.commit.notUndone).toStrictEqual([
      expect.objectContaining({ seq: 2, reason: expect.stringMatching(/outcome is unknown/) }),
    ]);
    expect(log).not.toContain('revert:upload');
  }, 60_000);

  it('a write still running when the commit is cancelled is reported as of unknown outcome, not as undone', async () => {
    const rt = runtime({ abortGraceMs: 100 });
    const shop = registerShop(rt);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let secondStarted = false;
    rt.register(
      defineTool({
        name: 'slow_refund',
        description: 'A refund whose provider ignores cancels.',
        parameters: { order: { type: 'integer', required: true } },
        output: { schema: { type: 'json' }, render: () => [] },
        effect: 'write',
        revert: (args) => {
          shop.log.push(`revert:${args.order}`);
        },
        execute: async (args) => {
          if (args.order === 2) {
            secondStarted = true;
            await held;
          }
          shop.log.push(`refund:${args.order}`);
          return { ok: true };
        },
      }),
    );
    const { plan } = await rt.preview(
      runCall('await tools.slow_refund({ order: 1 }); await tools.slow_refund({ order: 2 }); return 1;'),
    );
    const cancel = new AbortController();
    const committing = rt.commit(plan.token, { signal: cancel.signal }).catch((e: unknown) => e);
    await until(() => secondStarted);
    cancel.abort(new Error('user cancelled'));
    const failed = (await committing) as Stopped;
    expect(failed.info.commit.undone.map((w) => w.seq)).toStrictEqual([1]);
    expect(failed.info.commit.notUndone).toStrictEqual([
      expect.objectContaining({ seq: 2, reason: expect.stringMatching(/outcome is unknown/) }),
    ]);
    release();
    await until(() => shop.log.includes('refund:2'));
    expect(shop.log).toStrictEqual(['refund:1', 'revert:1', 'refund:2']);
  }, 60_000);

  it('a read after a write sees that write (it runs live), with or without revalidate', async () => {
    for (const revalidate of [false, true]) {
      const rt = runtime();
      let balance = 100;
      rt.register(
        defineTool({
          name: 'get_balance',
          description: 'The balance.',
          parameters: {},
          output: { schema: { type: 'number' }, render: () => [] },
          effect: 'read',
          execute: () => balance,
        }),
      );
      rt.register(
        defineTool({
          name: 'withdraw',
          description: 'Withdraw.',
          parameters: { amount: { type: 'number', required: true } },
          output: { schema: { type: 'json' }, render: () => [] },
          effect: 'write',
          execute: (args) => {
            balance -= args.amount;
            return { ok: true };
          },
        }),
      );
      const code = `
        const before = await tools.get_balance({});
        await tools.withdraw({ amount: 80 });
        return { before, after: await tools.get_balance({}) };`;
      const { plan, result } = await rt.preview(runCall(code));
      expect(result).toStrictEqual({ before: 100, after: 100 });
      const committed = await rt.commit(plan.token, { revalidate });
      expect(committed.result).toStrictEqual({ before: 100, after: 20 });
    }
  }, 60_000);
});
