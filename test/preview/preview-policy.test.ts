// Write policies in a preview: a tools/pre-execute handler or a guard that would refuse a
// write at commit refuses it in the preview too, with the same code. The program gets the
// refusal, the write stays out of the plan, and the commit answers it the same way (it
// never runs). An ask() is not put to anyone in a preview: the commit asks.
import { describe, expect, it } from '@jest/globals';
import { ask, deny, type ApprovalRequest } from '../../src/index.ts';
import { ptcRuntimes } from '../ptc/helpers.ts';
import { registerShop, runCall } from './fixtures/shop.ts';

const runtime = ptcRuntimes();

/** Refunds every late order, keeping the code of each one refused. */
const REFUND_EACH = `
const late = (await tools.list_orders({})).filter((o) => o.late);
const out = [];
for (const o of late) {
  try {
    await tools.refund({ order: o.id, amount: o.total });
    out.push(o.id);
  } catch (e) {
    out.push(e.code);
  }
}
return out;
`;

describe('write policies in a preview', () => {
  it('a pre-execute handler that denies a write denies it in the preview: not in the plan, never run', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    const seen: string[] = [];
    rt.on('tools/pre-execute', async (exec, next) => {
      seen.push(`${exec.name}:${JSON.stringify(exec.arguments)}`);
      return exec.name === 'refund' && (exec.arguments as { order: number }).order === 3
        ? deny('order 3 is under review')
        : next();
    });
    const { plan, result } = await rt.preview(runCall(REFUND_EACH));
    expect(result).toStrictEqual([1, 'DENIED', 5]);
    expect(plan.writes.map((w) => w.arguments)).toStrictEqual([
      { order: 1, amount: 100 },
      { order: 5, amount: 250 },
    ]);
    expect(shop.log).toStrictEqual([]);
    // The handler saw every write of the preview, as the commit's would.
    expect(seen.filter((s) => s.startsWith('refund'))).toHaveLength(3);

    const committed = await rt.commit(plan.token);
    expect(committed.result).toStrictEqual([1, 'DENIED', 5]);
    expect(shop.log).toStrictEqual(['refund:1', 'refund:5']);
    expect(committed.commit.applied.map((w) => w.seq)).toStrictEqual([2, 4]);
  }, 60_000);

  it('a guard that denies a write the program does not catch stops the preview with that code; no plan', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    rt.guard((exec) => (exec.name === 'email' ? { deny: 'no emails today' } : undefined));
    const failed = (await rt
      .preview(runCall(`await tools.refund({ order: 1, amount: 1 }); await tools.email({ to: 'a@x' }); return 1;`))
      .catch((e: unknown) => e)) as { code: string; message: string };
    expect(failed.message).toMatch(/no emails today \(tools\.email, code DENIED\)/);
    expect(failed.code).toBe('CODE_RUN_FAILED');
    expect(failed.code).toBe((await rt.execute(runCall(`await tools.email({ to: 'a@x' })`))).error?.code);
    expect(shop.log).toStrictEqual([]);
  }, 60_000);

  it('an ask() is not asked in a preview; the commit asks', async () => {
    const asked: ApprovalRequest[] = [];
    const rt = runtime({
      approval: {
        request: async (request) => {
          asked.push(request);
          return 'allowed-once';
        },
      },
    });
    const shop = registerShop(rt);
    rt.on('tools/pre-execute', async (exec, next) => (exec.name === 'refund' ? ask({ title: 'Refund?' }) : next()));
    const { plan, result } = await rt.preview(runCall(REFUND_EACH));
    expect(result).toStrictEqual([1, 3, 5]);
    expect(plan.writes).toHaveLength(3);
    expect(asked).toStrictEqual([]);
    await rt.commit(plan.token);
    expect(asked.map((a) => a.arguments)).toStrictEqual([
      { order: 1, amount: 100 },
      { order: 3, amount: 62.5 },
      { order: 5, amount: 250 },
    ]);
    expect(shop.log).toStrictEqual(['refund:1', 'refund:3', 'refund:5']);
  }, 60_000);
});
