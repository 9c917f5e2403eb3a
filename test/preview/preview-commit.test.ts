// Preview, then commit: the writes of a program are shown before any runs, the commit
// runs exactly them, a write the plan does not hold is stopped before it runs, and a
// failing write undoes the ones applied before it, last first.
import { describe, expect, it } from '@jest/globals';
import { ptcRuntimes } from '../ptc/helpers.ts';
import { registerShop, REFUND_LATE, runCall } from './fixtures/shop.ts';

const runtime = ptcRuntimes();

describe('preview then commit (refunds)', () => {
  it('previews three refunds without running any; the commit runs exactly those three', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    const { plan, result } = await rt.preview(runCall(REFUND_LATE));
    expect(shop.log).toStrictEqual([]);
    expect(plan.reads).toBe(1);
    expect(plan.writes).toStrictEqual([
      { seq: 2, name: 'refund', arguments: { order: 1, amount: 100 }, title: 'Refund order 1: 100' },
      { seq: 3, name: 'refund', arguments: { order: 3, amount: 62.5 }, title: 'Refund order 3: 62.5' },
      { seq: 4, name: 'refund', arguments: { order: 5, amount: 250 }, title: 'Refund order 5: 250' },
    ]);
    expect(result).toStrictEqual({ total: 412.5 });
    expect(plan.partial).toBeUndefined();
    expect(plan.expiresAt).toBeGreaterThan(Date.now());

    const committed = await rt.commit(plan.token);
    expect(shop.log).toStrictEqual(['refund:1', 'refund:3', 'refund:5']);
    expect(committed.result).toStrictEqual({ total: 412.5 });
    expect(committed.commit.applied.map((w) => w.arguments)).toStrictEqual(plan.writes.map((w) => w.arguments));
    expect(committed.commit.undone).toStrictEqual([]);
    // Each write ran with the plan's stable idempotency key.
    const planId = committed.commit.planId;
    expect(shop.keys).toStrictEqual([`run:${planId}:2`, `run:${planId}:3`, `run:${planId}:4`]);
  }, 60_000);

  it('a write the plan does not hold stops the commit before it runs (PLAN_MISMATCH) and the applied ones are undone', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    const { plan } = await rt.preview(runCall(REFUND_LATE));
    expect(plan.writes).toHaveLength(3);
    // The real answer of the third refund asks for a fourth: the preview's stand-in did not.
    shop.more.set(5, 2);
    const failed = await rt.commit(plan.token).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 'PLAN_MISMATCH' });
    const message = (failed as Error).message;
    expect(message).toMatch(/call #5 tools\.refund\(\{"amount":1,"order":2\}\) is not in the plan/);
    expect(shop.log).toStrictEqual(['refund:1', 'refund:3', 'refund:5', 'revert:5', 'revert:3', 'revert:1']);
    const commit = (failed as { info: { commit: { applied: unknown[]; undone: { seq: number }[] } } }).info.commit;
    expect(commit.applied).toHaveLength(3);
    expect(commit.undone.map((w) => w.seq)).toStrictEqual([4, 3, 2]);
  }, 60_000);

  it('a failing third write reverts the first two, last first; the result says what was applied and undone', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    const { plan } = await rt.preview(runCall(REFUND_LATE));
    shop.failing.add(5);
    const failed = await rt.commit(plan.token).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 'COMMIT_FAILED' });
    expect((failed as Error).message).toMatch(
      /write #4 tools\.refund\(.*\) failed \(TOOL_ERROR: the payment provider refused order 5\)/,
    );
    expect((failed as Error).message).toMatch(/Undone \(last first\): #3 tools\.refund, #2 tools\.refund/);
    expect(shop.log).toStrictEqual(['refund:1', 'refund:3', 'revert:3', 'revert:1']);
    expect((failed as { info: { commit: unknown } }).info.commit).toMatchObject({
      applied: [{ seq: 2 }, { seq: 3 }],
      undone: [{ seq: 3 }, { seq: 2 }],
      notUndone: [],
    });
  }, 60_000);

  it('writes without revert are listed as not undone', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    const code = `
      await tools.email({ to: 'a@x' });
      await tools.refund({ order: 1, amount: 1 });
      await tools.refund({ order: 3, amount: 1 });`;
    const { plan } = await rt.preview(runCall(code));
    expect(plan.writes.map((w) => w.name)).toStrictEqual(['email', 'refund', 'refund']);
    shop.failing.add(3);
    const failed = (await rt.commit(plan.token).catch((e: unknown) => e)) as {
      code: string;
      info: { commit: { undone: unknown[]; notUndone: unknown[] } };
    };
    expect(failed.code).toBe('COMMIT_FAILED');
    expect(shop.log).toStrictEqual(['email:a@x', 'refund:1', 'revert:1']);
    expect(failed.info.commit.undone).toStrictEqual([{ seq: 2, name: 'refund', arguments: { order: 1, amount: 1 } }]);
    expect(failed.info.commit.notUndone).toStrictEqual([
      { seq: 1, name: 'email', arguments: { to: 'a@x' }, reason: 'tools.email has no revert' },
    ]);
  }, 60_000);

  it('Promise.all of writes keeps plan order in the plan and in the commit', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    const code = 'await Promise.all([5, 1, 3].map((order) => tools.refund({ order, amount: order })));';
    const { plan } = await rt.preview(runCall(code));
    expect(plan.writes.map((w) => [w.seq, w.arguments])).toStrictEqual([
      [1, { order: 5, amount: 5 }],
      [2, { order: 1, amount: 1 }],
      [3, { order: 3, amount: 3 }],
    ]);
    const { commit } = await rt.commit(plan.token);
    expect(commit.applied.map((w) => w.seq)).toStrictEqual([1, 2, 3]);
    expect(shop.log).toStrictEqual(['refund:5', 'refund:1', 'refund:3']);
  }, 60_000);

  it('a write failing inside Promise.all stops the commit: later writes never run, applied ones are undone', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    const code = 'await Promise.all([1, 3, 5].map((order) => tools.refund({ order, amount: order })));';
    const { plan } = await rt.preview(runCall(code));
    expect(plan.writes).toHaveLength(3);
    shop.failing.add(3);
    const failed = (await rt.commit(plan.token).catch((e: unknown) => e)) as {
      code: string;
      info: { commit: unknown };
    };
    expect(failed.code).toBe('COMMIT_FAILED');
    expect(shop.log).toStrictEqual(['refund:1', 'revert:1']);
    expect(failed.info.commit).toMatchObject({ applied: [{ seq: 1 }], undone: [{ seq: 1 }], notUndone: [] });
  }, 60_000);

  it('what a preview program sees: the preview() stand-in, or a value marked $preview', async () => {
    const rt = runtime();
    registerShop(rt);
    const { result } = await rt.preview(
      runCall("return [await tools.refund({ order: 1, amount: 1 }), await tools.email({ to: 'b@x' })];"),
    );
    expect(result).toStrictEqual([{ refundId: 'preview-1' }, { $preview: true, tool: 'email', seq: 2 }]);
  }, 60_000);

  it('a pivot write ends the preview (partial plan); its commit runs up to the pivot and ends', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    const { defineTool } = await import('../../src/index.ts');
    rt.register(
      defineTool({
        name: 'open_case',
        description: 'Open a support case; its id is needed by later calls.',
        parameters: {},
        output: {
          schema: {
            type: 'object',
            properties: { caseId: { type: 'string', required: true } },
            additionalProperties: false,
          },
          render: () => [],
        },
        pivot: true,
        execute: () => {
          shop.log.push('open_case');
          return { caseId: 'c-9' };
        },
      }),
    );
    const code = `
      await tools.refund({ order: 1, amount: 1 });
      const { caseId } = await tools.open_case({});
      await tools.email({ to: caseId });
      return caseId;`;
    const preview = await rt.preview(runCall(code));
    expect(preview.plan.partial).toBe(true);
    expect(preview.plan.writes.map((w) => w.name)).toStrictEqual(['refund', 'open_case']);
    expect(preview.result).toBeUndefined();
    expect(shop.log).toStrictEqual([]);
    const committed = await rt.commit(preview.plan.token);
    expect(shop.log).toStrictEqual(['refund:1', 'open_case']);
    expect(committed.commit.applied.map((w) => w.name)).toStrictEqual(['refund', 'open_case']);
  }, 60_000);
});
