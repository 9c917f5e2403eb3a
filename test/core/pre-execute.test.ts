// tools/pre-execute and approval: the waterfall, deny/cancel/ask, every
// approval outcome distinct and never auto-approved, aborts during approval.
import { describe, expect, it, jest } from '@jest/globals';
import { getEventListeners } from 'node:events';
import {
  allow,
  ask,
  cancel,
  deny,
  type ApprovalRequest,
  type ApprovalService,
  type ToolResult,
} from '../../src/index.ts';
import { call, deferred, echoRuntime } from './helpers.ts';

describe('the pre-execute waterfall', () => {
  it('allows by default', async () => {
    const { rt, calls } = echoRuntime();
    expect((await rt.execute(call())).value).toEqual({ echoed: 'hi' });
    expect(calls.count).toBe(1);
  });

  it('runs the first registered handler outermost; each reaches the next through next()', async () => {
    const { rt } = echoRuntime();
    const order: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      rt.on('tools/pre-execute', async (_exec, next) => {
        order.push(`${name}>`);
        const decision = await next();
        order.push(`<${name}`);
        return decision;
      });
    }
    await rt.execute(call());
    expect(order).toEqual(['a>', 'b>', 'c>', '<c', '<b', '<a']);
  });

  it('deny(reason, info) is DENIED, does not call next, and still reaches post-execute', async () => {
    const { rt, calls } = echoRuntime();
    const inner = jest.fn((_e: unknown, next: () => unknown) => next());
    rt.on('tools/pre-execute', () => deny('not on weekends', { day: 'sat' }));
    rt.on('tools/pre-execute', inner as never);
    const outcomes: ToolResult[] = [];
    rt.on('tools/post-execute', (_exec, outcome, next) => {
      outcomes.push(outcome);
      return next();
    });
    const result = await rt.execute(call());
    expect(result.error).toEqual({ code: 'DENIED', message: 'not on weekends', info: { day: 'sat' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Error: not on weekends' }]);
    expect(inner).not.toHaveBeenCalled();
    expect(calls.count).toBe(0);
    expect(outcomes.map((o) => o.error?.code)).toEqual(['DENIED']);
  });

  it.each([
    ['cancel()', cancel(), 'tool call cancelled'],
    ['cancel(reason)', cancel('user stopped it'), 'user stopped it'],
  ])('%s is a canonical CANCELLED error', async (_label, decision, message) => {
    const { rt, calls } = echoRuntime();
    rt.on('tools/pre-execute', () => decision);
    const result = await rt.execute(call());
    expect(result.error).toEqual({ code: 'CANCELLED', message });
    expect(calls.count).toBe(0);
  });

  it('an outer handler sees the inner decision', async () => {
    const { rt } = echoRuntime();
    const seen: unknown[] = [];
    rt.on('tools/pre-execute', async (_exec, next) => {
      const d = await next();
      seen.push(d);
      return d;
    });
    rt.on('tools/pre-execute', () => deny('inner'));
    await rt.execute(call());
    expect(seen).toEqual([deny('inner')]);
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'allow'],
    ['an unknown kind (there is no rewrite decision)', { kind: 'rewrite', arguments: { q: 'other' } }],
  ])('a handler returning %s is a PIPELINE_ERROR that skips post-execute', async (_label, garbage) => {
    const { rt, calls } = echoRuntime();
    rt.on('tools/pre-execute', () => garbage as never);
    const post = jest.fn((_e: unknown, _o: unknown, next: () => unknown) => next());
    rt.on('tools/post-execute', post as never);
    const observed: ToolResult[] = [];
    rt.on('tools/result', (r) => {
      observed.push(r);
    });
    const result = await rt.execute(call());
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    expect(result.error?.message).toContain('tools/pre-execute failed');
    expect(result.error?.message).toContain('return allow(), deny(reason), cancel() or ask()');
    expect(result.error?.info).toEqual({ stage: 'tools/pre-execute' });
    expect(calls.count).toBe(0);
    expect(post).not.toHaveBeenCalled();
    expect(observed).toEqual([result]);
  });

  it('a throwing handler is a PIPELINE_ERROR that skips post-execute', async () => {
    const { rt, calls } = echoRuntime();
    rt.on('tools/pre-execute', () => {
      throw new Error('policy store down');
    });
    const post = jest.fn((_e: unknown, _o: unknown, next: () => unknown) => next());
    rt.on('tools/post-execute', post as never);
    const result = await rt.execute(call());
    expect(result.error?.message).toBe('tools/pre-execute failed: policy store down');
    expect(post).not.toHaveBeenCalled();
    expect(calls.count).toBe(0);
  });

  it('after allow, guards may still deny', async () => {
    const { rt, calls } = echoRuntime();
    rt.on('tools/pre-execute', () => allow());
    rt.guard(() => ({ deny: 'guarded' }));
    expect((await rt.execute(call())).error).toEqual({ code: 'DENIED', message: 'guarded' });
    expect(calls.count).toBe(0);
  });
});

describe('ask: only allowed-once allows, every other outcome is distinct', () => {
  type Case = readonly [string, ApprovalService | undefined, string, string | undefined];
  const answering = (answer: unknown): ApprovalService => ({ request: async () => answer as never });
  const cases: readonly Case[] = [
    ['no approval service', undefined, 'APPROVAL_UNAVAILABLE', 'no-approval-service'],
    [
      'no routing for the agent',
      { request: async () => 'allowed-once', canRoute: () => false },
      'APPROVAL_UNAVAILABLE',
      'no-agent-routing',
    ],
    [
      'a throwing canRoute',
      {
        request: async () => 'allowed-once',
        canRoute: () => {
          throw new Error('router down');
        },
      },
      'APPROVAL_UNAVAILABLE',
      'approval-error',
    ],
    ['channel unavailable', answering('unavailable'), 'APPROVAL_UNAVAILABLE', 'channel-unavailable'],
    ['user rejected', answering('rejected'), 'APPROVAL_REJECTED', undefined],
    ['user cancelled', answering('cancelled'), 'CANCELLED', 'user-cancelled'],
    [
      'service rejects',
      {
        request: async () => {
          throw new Error('socket closed');
        },
      },
      'APPROVAL_UNAVAILABLE',
      'approval-error',
    ],
    [
      'service throws synchronously',
      {
        request: () => {
          throw new Error('sync');
        },
      },
      'APPROVAL_UNAVAILABLE',
      'approval-error',
    ],
    ['an answer outside the contract (truthy)', answering(true), 'APPROVAL_UNAVAILABLE', 'invalid-answer'],
    [
      'an answer outside the contract (allowed-always)',
      answering('allowed-always'),
      'APPROVAL_UNAVAILABLE',
      'invalid-answer',
    ],
  ];

  it.each(cases)('%s: refused, the body never runs', async (_label, approval, code, reason) => {
    const { rt, calls } = echoRuntime(approval === undefined ? {} : { runtime: { approval } });
    rt.on('tools/pre-execute', () => ask());
    const result = await rt.execute(call());
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe(code);
    expect(result.error?.info?.reason).toBe(reason);
    expect(calls.count).toBe(0);
  });

  it('the explicit refusals (missing service, no routing, unavailable, rejected, cancelled) are distinct', async () => {
    const signatures = new Set<string>();
    for (const [, approval] of cases.slice(0, 6).filter((c) => c[3] !== 'approval-error')) {
      const { rt } = echoRuntime(approval === undefined ? {} : { runtime: { approval } });
      rt.on('tools/pre-execute', () => ask());
      const result = await rt.execute(call());
      signatures.add(`${result.error?.code}/${String(result.error?.info?.reason)}/${result.error?.message}`);
    }
    expect(signatures.size).toBe(5);
  });

  it('allowed-once runs the body; the request carries the call, frozen arguments, title, detail and signal', async () => {
    const requests: ApprovalRequest[] = [];
    const controller = new AbortController();
    const { rt, calls } = echoRuntime({
      runtime: {
        approval: {
          request: async (req) => {
            requests.push(req);
            return 'allowed-once';
          },
          canRoute: (agent) => agent === 'a',
        },
      },
    });
    rt.createAgent('a');
    rt.on('tools/pre-execute', () => ask({ title: 'Send it?', detail: { risk: 'low' } }));
    const result = await rt.execute({ ...call('echo', { q: 'x' }), agent: 'a', signal: controller.signal });
    expect(result.value).toEqual({ echoed: 'x' });
    expect(calls.count).toBe(1);
    const [req] = requests as [ApprovalRequest];
    expect(req).toMatchObject({
      callId: 'c1',
      name: 'echo',
      agent: 'a',
      arguments: { q: 'x' },
      title: 'Send it?',
      detail: { risk: 'low' },
    });
    expect(Object.isFrozen(req.arguments)).toBe(true);
    expect(req.signal).toBe(controller.signal);
  });

  it('a default title describes the call', async () => {
    const titles: string[] = [];
    const { rt } = echoRuntime({
      runtime: { approval: { request: async (r) => (titles.push(r.title), 'allowed-once') } },
    });
    rt.on('tools/pre-execute', () => ask());
    await rt.execute(call());
    expect(titles).toEqual(['Allow tool "echo" to run?']);
  });

  it('after an approval, guards still run and may deny', async () => {
    const { rt, calls } = echoRuntime({ runtime: { approval: { request: async () => 'allowed-once' } } });
    rt.on('tools/pre-execute', () => ask());
    rt.guard(() => ({ deny: 'guard after approval' }));
    expect((await rt.execute(call())).error?.message).toBe('guard after approval');
    expect(calls.count).toBe(0);
  });
});

describe('an abort during approval is ABORTED_BEFORE_DISPATCH', () => {
  const scenarios: ReadonlyArray<readonly [string, (signal: AbortSignal, answered: Promise<void>) => Promise<string>]> =
    [
      ['the service still answers allowed-once', async (_s, answered) => (await answered, 'allowed-once')],
      ['the service answers cancelled because of the abort', async (_s, answered) => (await answered, 'cancelled')],
      [
        'the service rejects because of the abort',
        async (signal, answered) => {
          await answered;
          throw signal.reason;
        },
      ],
      ['the service never answers', () => new Promise<string>(() => {})],
    ];

  it.each(scenarios)('when %s', async (_label, answer) => {
    const controller = new AbortController();
    const asked = deferred<void>();
    const answered = deferred<void>();
    const { rt, calls } = echoRuntime({
      runtime: {
        approval: {
          request: (req) => {
            asked.resolve();
            return answer(req.signal, answered.promise) as never;
          },
        },
      },
    });
    rt.on('tools/pre-execute', () => ask());
    const pending = rt.execute({ ...call(), signal: controller.signal });
    await asked.promise;
    controller.abort();
    answered.resolve();
    const result = await pending;
    expect(result.error).toEqual({ code: 'ABORTED_BEFORE_DISPATCH', message: 'tool call aborted before dispatch' });
    expect(calls.count).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('an abort during the pre-execute waterfall does not ask anybody', async () => {
    const controller = new AbortController();
    const request = jest.fn(async () => 'allowed-once' as const);
    const { rt } = echoRuntime({ runtime: { approval: { request } } });
    rt.on('tools/pre-execute', () => {
      controller.abort();
      return ask();
    });
    const result = await rt.execute({ ...call(), signal: controller.signal });
    expect(result.error?.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(request).not.toHaveBeenCalled();
  });

  it('an abort during guards is rechecked before dispatch', async () => {
    const controller = new AbortController();
    const { rt, calls } = echoRuntime();
    rt.guard(() => {
      controller.abort();
      return undefined;
    });
    const result = await rt.execute({ ...call(), signal: controller.signal });
    expect(result.error?.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(calls.count).toBe(0);
  });
});
