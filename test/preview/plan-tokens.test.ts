// Plan tokens are sealed, expiring, single use and bound to their agent, principal and
// program; a read that changed between preview and commit stops a revalidating commit
// before any write; the model can preview and commit through run_code's arguments.
import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { ptcRuntimes } from '../ptc/helpers.ts';
import { registerShop, REFUND_LATE, runCall } from './fixtures/shop.ts';

const runtime = ptcRuntimes();

const refusal = (promise: Promise<unknown>): Promise<{ code: string; message: string }> =>
  promise.then(
    () => {
      throw new Error('the commit was not refused');
    },
    (error: { code: string; message: string }) => error,
  );

describe('plan tokens', () => {
  it('a tampered, forged or unknown token is refused before anything runs', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    const { plan } = await rt.preview(runCall(REFUND_LATE));
    const [prefix, body, seal] = plan.token.split('.') as [string, string, string];
    // Same seal, another expiry in the payload.
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { expiresAt: number };
    const changed = Buffer.from(JSON.stringify({ ...payload, expiresAt: payload.expiresAt + 3_600_000 })).toString(
      'base64url',
    );
    const tampered = await refusal(rt.commit(`${prefix}.${changed}.${seal}`));
    expect(tampered.code).toBe('PLAN_INVALID');
    expect(tampered.message).toMatch(/seal does not match/);
    // Sealed with a key of the forger's own.
    const forgedSeal = createHmac('sha256', 'x'.repeat(32)).update(`${prefix}.${body}`).digest('base64url');
    expect((await refusal(rt.commit(`${prefix}.${body}.${forgedSeal}`))).code).toBe('PLAN_INVALID');
    expect((await refusal(rt.commit('not a token'))).message).toMatch(/not a plan token/);
    expect((await refusal(rt.commit('x'.repeat(5000)))).message).toMatch(/5000 characters, longer than any token/);
    // Another runtime (another key, another store) does not know it.
    const other = runtime();
    registerShop(other);
    expect((await refusal(other.commit(plan.token))).code).toBe('PLAN_INVALID');
    expect(shop.log).toStrictEqual([]);
    // The real token still works once.
    await rt.commit(plan.token);
    expect(shop.log).toStrictEqual(['refund:1', 'refund:3', 'refund:5']);
  }, 60_000);

  it('a token is single use: the second commit gets PLAN_USED and runs nothing', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    const { plan } = await rt.preview(runCall(REFUND_LATE));
    await rt.commit(plan.token);
    const again = await refusal(rt.commit(plan.token));
    expect(again.code).toBe('PLAN_USED');
    expect(shop.log).toStrictEqual(['refund:1', 'refund:3', 'refund:5']);
  }, 60_000);

  it('a token expires after planTtlMs (PLAN_EXPIRED)', async () => {
    const rt = runtime({ planTtlMs: 200 });
    const shop = registerShop(rt);
    const { plan } = await rt.preview(runCall(REFUND_LATE));
    expect(plan.expiresAt - Date.now()).toBeLessThanOrEqual(200);
    // Wait until the expiry has passed (a bound on a condition, not a timing assertion).
    while (Date.now() <= plan.expiresAt) await new Promise((resolve) => setTimeout(resolve, 50));
    const expired = await refusal(rt.commit(plan.token));
    expect(expired.code).toBe('PLAN_EXPIRED');
    expect(shop.log).toStrictEqual([]);
  }, 60_000);

  it('a token is bound to its agent and principal', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    rt.createAgent('support');
    rt.createAgent('billing');
    const { plan } = await rt.preview(runCall(REFUND_LATE, { agent: 'support', principal: 'alice' }));
    expect((await refusal(rt.commit(plan.token))).message).toMatch(/not issued to this agent and principal/);
    expect((await refusal(rt.commit(plan.token, { agent: 'billing', principal: 'alice' }))).code).toBe('PLAN_INVALID');
    expect((await refusal(rt.commit(plan.token, { agent: 'support', principal: 'bob' }))).code).toBe('PLAN_INVALID');
    expect(shop.log).toStrictEqual([]);
    const done = await rt.commit(plan.token, { agent: 'support', principal: 'alice' });
    expect(done.commit.applied).toHaveLength(3);
  }, 60_000);

  it('createToolRuntime refuses a bad planTtlMs and a short PTC_PLAN_KEY', () => {
    expect(() => runtime({ planTtlMs: 0 })).toThrow(/planTtlMs must be a positive integer, got 0/);
    const saved = process.env.PTC_PLAN_KEY;
    process.env.PTC_PLAN_KEY = 'short';
    try {
      expect(() => runtime()).toThrow(/PTC_PLAN_KEY is 5 characters; a plan key needs at least 32/);
    } finally {
      if (saved === undefined) delete process.env.PTC_PLAN_KEY;
      else process.env.PTC_PLAN_KEY = saved;
    }
  });

  it('with PTC_PLAN_KEY two runtimes share the key: a token sealed by one opens in the other (and is unknown there without a shared store)', async () => {
    const saved = process.env.PTC_PLAN_KEY;
    process.env.PTC_PLAN_KEY = 'k'.repeat(40);
    try {
      const a = runtime();
      const b = runtime();
      registerShop(a);
      registerShop(b);
      const { plan } = await a.preview(runCall(REFUND_LATE));
      expect((await refusal(b.commit(plan.token))).message).toMatch(/is not known here/);
    } finally {
      if (saved === undefined) delete process.env.PTC_PLAN_KEY;
      else process.env.PTC_PLAN_KEY = saved;
    }
  }, 60_000);
});

describe('revalidate (time of check to time of use)', () => {
  it('by default the commit answers reads from the preview: the plan runs as shown even if the data changed', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    const { plan } = await rt.preview(runCall(REFUND_LATE));
    shop.orders[1]!.late = true; // order 2 is late now
    const { commit } = await rt.commit(plan.token);
    expect(commit.applied.map((w) => w.arguments)).toStrictEqual(plan.writes.map((w) => w.arguments));
    expect(shop.log).toStrictEqual(['refund:1', 'refund:3', 'refund:5']);
  }, 60_000);

  it('revalidate: true runs the reads again first: a changed answer is PLAN_STALE and no write runs', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    const { plan } = await rt.preview(runCall(REFUND_LATE));
    shop.orders[0]!.total = 1_000;
    const stale = await refusal(rt.commit(plan.token, { revalidate: true }));
    expect(stale.code).toBe('PLAN_STALE');
    expect(stale.message).toMatch(/read #1 tools\.list_orders\(\{\}\) answers differently than in the preview/);
    expect(shop.log).toStrictEqual([]);
    // An unchanged world commits.
    shop.orders[0]!.total = 100;
    const again = await rt.preview(runCall(REFUND_LATE));
    await rt.commit(again.plan.token, { revalidate: true });
    expect(shop.log).toStrictEqual(['refund:1', 'refund:3', 'refund:5']);
  }, 60_000);
});

describe('limits and the model surface', () => {
  it('a preview whose record is over maxPlanBytes makes no plan (PLAN_TOO_LARGE)', async () => {
    const rt = runtime({ maxPlanBytes: 2_000 });
    const shop = registerShop(rt, [{ id: 1, total: 1, late: true }]);
    await rt.preview(runCall(REFUND_LATE));
    shop.orders.push(...Array.from({ length: 40 }, (_, i) => ({ id: 100 + i, total: 1, late: false })));
    const big = await refusal(rt.preview(runCall(REFUND_LATE)));
    expect(big.code).toBe('PLAN_TOO_LARGE');
    expect(big.message).toMatch(/larger than maxPlanBytes \(2000\)/);
  }, 60_000);

  it('planArguments: the model previews with preview: true and commits with commit: "<token>"; another program is PLAN_MISMATCH', async () => {
    const rt = runtime({ planArguments: true });
    const shop = registerShop(rt);
    const schema = rt.schemas().find((s) => s.name === 'run_code')!;
    expect(Object.keys((schema.parameters as { properties: object }).properties)).toStrictEqual([
      'description',
      'code',
      'preview',
      'commit',
    ]);
    const call = runCall(REFUND_LATE);
    const previewed = await rt.execute({ ...call, arguments: { ...call.arguments, preview: true } });
    const text = previewed.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
    expect(text).toMatch(/Plan: 3 write\(s\), not run yet \(1 read\(s\) ran\):\n {2}#2 Refund order 1: 100/);
    const token = (previewed.value as { plan: { token: string } }).plan.token;
    expect(shop.log).toStrictEqual([]);
    // A fourth refund written into the program: refused before anything runs.
    const changed = await rt.execute({
      ...call,
      arguments: {
        ...call.arguments,
        code: `${REFUND_LATE.replace('return { total };', '')}await tools.refund({ order: 2, amount: 250 });`,
        commit: token,
      },
    });
    expect(changed.error?.code).toBe('PLAN_MISMATCH');
    expect(changed.error?.message).toMatch(/program differs from the one previewed/);
    expect(shop.log).toStrictEqual([]);
    const committed = await rt.execute({ ...call, arguments: { ...call.arguments, commit: token } });
    expect(committed.isError).toBe(false);
    expect(shop.log).toStrictEqual(['refund:1', 'refund:3', 'refund:5']);
  }, 60_000);

  it('without planArguments run_code ignores preview and commit: the program simply runs', async () => {
    const rt = runtime();
    const shop = registerShop(rt);
    const call = runCall(REFUND_LATE);
    const ran = await rt.execute({ ...call, arguments: { ...call.arguments, preview: true } });
    expect(ran.isError).toBe(false);
    expect(shop.log).toStrictEqual(['refund:1', 'refund:3', 'refund:5']);
  }, 60_000);
});
