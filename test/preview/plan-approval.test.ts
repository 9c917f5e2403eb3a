// Whole-plan approval in the runtime (`planApproval`): a plan waits for an operator's
// decision; rt.plans() lists it (writes, titles, program) in the operator's scope,
// rt.decidePlan() approves or rejects it as a whole, the first decision stands, and the
// decision is kept where the plan is: a plan previewed on one runtime is approved on
// another of the same journal and committed on the first.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ptcRuntimes } from '../ptc/helpers.ts';
import { registerShop, REFUND_LATE, runCall } from './fixtures/shop.ts';

const runtime = ptcRuntimes();
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-plan-approval-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('a plan previewed on one runtime is approved on another of the journal, then commits once', async () => {
  const journal = join(dir, 'approval.jsonl');
  const previewer = runtime({ journal, planApproval: true });
  const shop = registerShop(previewer);
  const operator = runtime({ journal });
  registerShop(operator);
  const { plan } = await previewer.preview(runCall(REFUND_LATE, { principal: 'ann' }));
  expect(plan.awaitsApproval).toBe(true);
  await expect(previewer.commit(plan.token, { principal: 'ann' })).rejects.toMatchObject({
    code: 'PLAN_NOT_APPROVED',
  });

  const waiting = await operator.plans();
  expect(waiting).toStrictEqual([
    {
      planId: plan.planId,
      principal: 'ann',
      description: 'Refund late orders',
      code: REFUND_LATE,
      writes: plan.writes,
      reads: 1,
      createdAt: expect.any(Number),
      expiresAt: plan.expiresAt,
    },
  ]);
  // Scoped as durable runs are: another principal's operator neither sees nor decides it.
  expect(await operator.plans({ principal: 'bob' })).toStrictEqual([]);
  await expect(operator.decidePlan(plan.planId, 'approve', { principal: 'bob' })).rejects.toMatchObject({
    code: 'PLAN_INVALID',
  });
  await expect(operator.decidePlan(plan.planId, 'maybe' as 'approve')).rejects.toThrow(/'approve' or 'reject'/);

  expect(await operator.decidePlan(plan.planId, 'approve', { principal: 'ann' })).toStrictEqual({
    planId: plan.planId,
    decision: 'approve',
  });
  // The same decision again is a no-op; the other one is refused.
  expect(await operator.decidePlan(plan.planId, 'approve')).toMatchObject({ decision: 'approve' });
  await expect(operator.decidePlan(plan.planId, 'reject')).rejects.toMatchObject({ code: 'PLAN_DECIDED' });
  expect(await operator.plans()).toStrictEqual([]);

  const { commit } = await previewer.commit(plan.token, { principal: 'ann' });
  expect(commit.applied).toHaveLength(3);
  expect(shop.log).toStrictEqual(['refund:1', 'refund:3', 'refund:5']);
  await expect(operator.decidePlan(plan.planId, 'approve')).rejects.toMatchObject({ code: 'PLAN_USED' });
}, 60_000);

it('in memory: a rejected plan never commits; a plan that does not wait for approval cannot be decided', async () => {
  const rt = runtime({ planApproval: true });
  const shop = registerShop(rt);
  const { plan } = await rt.preview(runCall(REFUND_LATE));
  await rt.decidePlan(plan.planId, 'reject');
  await expect(rt.commit(plan.token)).rejects.toMatchObject({ code: 'PLAN_REJECTED' });
  await expect(rt.commit(plan.token)).rejects.toMatchObject({ code: 'PLAN_REJECTED' });
  expect(shop.log).toStrictEqual([]);

  const free = runtime();
  registerShop(free);
  const { plan: unchecked } = await free.preview(runCall(REFUND_LATE));
  expect(unchecked.awaitsApproval).toBeUndefined();
  expect(await free.plans()).toStrictEqual([]);
  await expect(free.decidePlan(unchecked.planId, 'reject')).rejects.toMatchObject({ code: 'PLAN_INVALID' });
  expect((await free.commit(unchecked.token)).commit.applied).toHaveLength(3);
  expect(() => runtime({ planApproval: 'yes' as unknown as boolean })).toThrow(/planApproval must be a boolean/);
}, 60_000);
