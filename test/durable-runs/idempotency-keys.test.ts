// Idempotency keys are disjoint by construction: a durable run's nested calls get
// `run:<runId>:<n>`, every other call `call:<callId>`, so no callId a caller picks (the
// run's own key, the run id and sequence, a nested callId) produces another call's key.
import { expect, it } from '@jest/globals';
import { createMemoryJournal, createToolRuntime, defineTool } from '../../src/index.ts';

it('no direct call shares a key with a durable run call, whatever its callId', async () => {
  const keys: { callId: string; key: string }[] = [];
  const rt = createToolRuntime({
    journal: createMemoryJournal(),
    mode: 'both',
    sandbox: { isolation: 'in-process', poolSize: 1 },
  });
  rt.register(
    defineTool({
      name: 'pay',
      description: 'Records its idempotency key.',
      parameters: {},
      output: { schema: { type: 'json' }, render: () => [] },
      execute: (_args, exec) => {
        keys.push({ callId: exec.callId, key: exec.idempotencyKey });
        return null;
      },
    }),
  );
  const run = await rt.execute({
    callId: 'toolu_1',
    name: 'run_code',
    arguments: { description: 'two payments', code: 'await tools.pay({}); await tools.pay({});' },
  });
  expect(run.isError).toBe(false);
  const [first] = keys;
  expect(first?.key).toMatch(/^run:[0-9a-f-]{36}:1$/);
  const runId = first!.key.split(':')[1]!;
  for (const callId of [`${runId}:1`, first!.key, 'toolu_1:ptc:1', `run:${runId}:2`])
    expect((await rt.execute({ callId, name: 'pay', arguments: {} })).isError).toBe(false);
  expect(keys.slice(2).map((k) => k.key)).toStrictEqual([
    `call:${runId}:1`,
    `call:run:${runId}:1`,
    'call:toolu_1:ptc:1',
    `call:run:${runId}:2`,
  ]);
  expect(new Set(keys.map((k) => k.key)).size).toBe(keys.length);
  await rt.close();
});
