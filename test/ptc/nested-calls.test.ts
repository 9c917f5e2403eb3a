// Nested calls: every SDK call of a program is a registry execution with
// its own id, the outer's root and token, the same agent, through every policy layer;
// the program gets the canonical value; bodies overlap only while consecutive calls
// are concurrency-safe, and commits follow submission order.
import { describe, expect, it } from '@jest/globals';
import {
  accept,
  ask,
  block,
  deny,
  type ApprovalRequest,
  type ApprovalService,
  type JsonValue,
  type ToolResult,
} from '../../src/index.ts';
import { defineTool } from '../../src/index.ts';
import { atMost, OverlapRecorder, probeTool, ptcRuntimes, runCode, runValue, sleep, untilAborted } from './helpers.ts';

const runtime = ptcRuntimes();

/** The program's view of a failed call: `{ name, code, toolName, message, isToolCallError }`. */
const catching = (call: string): string => `
  try {
    await ${call};
    return 'no error';
  } catch (e) {
    return { name: e.name, code: e.code, toolName: e.toolName, message: e.message, isToolCallError: e instanceof ToolCallError };
  }`;

describe('identity of nested executions', () => {
  it('callIds <outer>:ptc:1..n, the outer root, the outer token as parent, the same agent, a live signal', async () => {
    const rt = runtime();
    rt.register(probeTool({ name: 'alpha' }));
    const agent = rt.createAgent('worker');
    const seen: {
      callId: string;
      name: string;
      parent: symbol | undefined;
      token: symbol;
      root: string;
      agent: string | undefined;
      aborted: boolean;
    }[] = [];
    rt.on('tools/pre-execute', (exec, next) => {
      seen.push({
        callId: exec.callId,
        name: exec.name,
        parent: exec.parent,
        token: exec.token,
        root: exec.rootCallId,
        agent: exec.agent,
        aborted: exec.signal.aborted,
      });
      return next();
    });
    const result = await runCode(rt, 'for (let i = 0; i < 3; i++) await tools.alpha({ tag: String(i) }); return "ok"', {
      callId: 'outer-7',
      agent: 'worker',
    });
    expect(runValue(result).result).toBe('ok');
    const [outer, ...nested] = seen;
    expect(outer!.callId).toBe('outer-7');
    expect(outer!.parent).toBeUndefined();
    expect(nested.map((n) => n.callId)).toEqual(['outer-7:ptc:1', 'outer-7:ptc:2', 'outer-7:ptc:3']);
    for (const n of nested) {
      expect(n.name).toBe('alpha');
      expect(typeof n.parent).toBe('symbol');
      expect(n.parent).toBe(outer!.token);
      expect(n.token).not.toBe(outer!.token);
      expect(n.root).toBe(outer!.root);
      expect(n.root).toBe('outer-7');
      expect(n.agent).toBe(agent.id);
      expect(n.aborted).toBe(false);
    }
  });

  it("observers see every nested result, committed before run_code's own", async () => {
    const rt = runtime();
    rt.register(probeTool({ name: 'alpha' }));
    const observed: string[] = [];
    rt.on('tools/result', (r) => {
      observed.push(r.callId);
    });
    await runCode(rt, 'await tools.alpha({}); await tools.alpha({});');
    expect(observed).toEqual(['rc:ptc:1', 'rc:ptc:2', 'rc']);
  });

  it('nested calls get no presentationMeta; a direct call of the same tool does', async () => {
    const rt = runtime({ mode: 'both' });
    rt.register(probeTool({ name: 'shown', presentationMeta: true }));
    const results = new Map<string, ToolResult>();
    rt.on('tools/result', (r) => {
      results.set(r.callId, r);
    });
    const direct = await rt.execute({ callId: 'd', name: 'shown', arguments: {} });
    expect(direct.presentationMeta).toEqual({ ui: 'shown' });
    await runCode(rt, 'await tools.shown({})');
    expect(results.get('rc:ptc:1')?.isError).toBe(false);
    expect(results.get('rc:ptc:1')).not.toHaveProperty('presentationMeta');
  });
});

describe('the program gets the canonical value, never the content', () => {
  it('render, projectContent and a post-execute content replacement do not reach the program', async () => {
    const rt = runtime();
    rt.register(
      defineTool({
        name: 'priced',
        description: 'A price.',
        parameters: {},
        output: {
          schema: {
            type: 'object',
            additionalProperties: false,
            properties: { cents: { type: 'integer', required: true } },
          },
          render: (_args, value) => [{ type: 'text', text: `The price is ${value.cents / 100} EUR` }],
        },
        projectContent: () => [{ type: 'text', text: 'projected' }],
        execute: () => ({ cents: 1250 }),
      }),
    );
    rt.on('tools/post-execute', (exec, _outcome, next) =>
      exec.name === 'priced' ? accept({ content: [{ type: 'text', text: 'replaced' }] }) : next(),
    );
    const result = await runCode(rt, 'return await tools.priced({})');
    expect(runValue(result).result).toEqual({ cents: 1250 });
  });

  it('a post-execute value replacement is the canonical value the program receives', async () => {
    const rt = runtime();
    rt.register(probeTool({ name: 'alpha', body: () => 'original' }));
    rt.on('tools/post-execute', (exec, _outcome, next) =>
      exec.parent !== undefined ? accept({ value: 'replaced' }) : next(),
    );
    const result = await runCode(rt, 'return await tools.alpha({})');
    expect(runValue(result).result).toBe('replaced');
  });
});

describe('nested calls meet every policy layer', () => {
  it('a pre-execute deny: the program catches ToolCallError with code DENIED, the body never runs', async () => {
    const rt = runtime();
    let bodies = 0;
    rt.register(probeTool({ name: 'danger', body: () => ++bodies }));
    rt.on('tools/pre-execute', (exec, next) =>
      exec.name === 'danger' ? deny('danger is off limits', { rule: 7 }) : next(),
    );
    const result = await runCode(rt, catching('tools.danger({})'));
    expect(runValue(result).result).toEqual({
      name: 'ToolCallError',
      code: 'DENIED',
      toolName: 'danger',
      message: 'danger is off limits',
      isToolCallError: true,
    });
    expect(bodies).toBe(0);
  });

  it('an approval ask: allowed-once runs, rejected and no service each fail with their own code', async () => {
    const requests: ApprovalRequest[] = [];
    const answers: ('allowed-once' | 'rejected')[] = ['allowed-once', 'rejected'];
    const approval: ApprovalService = {
      request: async (request) => {
        requests.push(request);
        return answers.shift() ?? 'rejected';
      },
    };
    const rt = runtime({ approval });
    let bodies = 0;
    rt.register(probeTool({ name: 'pay', body: (args) => ({ paid: args.tag ?? null, n: ++bodies }) }));
    rt.on('tools/pre-execute', (exec, next) => (exec.name === 'pay' ? ask({ title: 'Pay?' }) : next()));
    const program = `
      const first = await tools.pay({ tag: 'a' });
      let second;
      try { await tools.pay({ tag: 'b' }); } catch (e) { second = e.code; }
      return { first, second };`;
    const result = await runCode(rt, program);
    expect(runValue(result).result).toEqual({ first: { paid: 'a', n: 1 }, second: 'APPROVAL_REJECTED' });
    expect(bodies).toBe(1);
    expect(requests.map((r) => [r.callId, r.name, r.title, r.arguments])).toEqual([
      ['rc:ptc:1', 'pay', 'Pay?', { tag: 'a' }],
      ['rc:ptc:2', 'pay', 'Pay?', { tag: 'b' }],
    ]);

    // No approval service: ask never auto-approves.
    const bare = runtime();
    bare.register(probeTool({ name: 'pay' }));
    bare.on('tools/pre-execute', (exec, next) => (exec.name === 'pay' ? ask() : next()));
    const refused = await runCode(bare, catching('tools.pay({})'));
    expect(runValue(refused).result).toMatchObject({ code: 'APPROVAL_UNAVAILABLE', toolName: 'pay' });
  });

  it('a guard denies a nested call (and only the call it targets)', async () => {
    const rt = runtime();
    rt.register(probeTool({ name: 'alpha' }));
    rt.guard((exec) =>
      exec.parent !== undefined && (exec.arguments as { tag?: string }).tag === 'bad'
        ? { deny: 'guarded: bad tag' }
        : undefined,
    );
    const result = await runCode(
      rt,
      `
      const ok = await tools.alpha({ tag: 'good' });
      let denied;
      try { await tools.alpha({ tag: 'bad' }); } catch (e) { denied = [e.code, e.message]; }
      return { ok: ok.args.tag, denied };`,
    );
    expect(runValue(result).result).toEqual({ ok: 'good', denied: ['DENIED', 'guarded: bad tag'] });
  });

  it('a post-execute block: the body ran, the program gets BLOCKED with the feedback', async () => {
    const rt = runtime();
    const effects: string[] = [];
    rt.register(probeTool({ name: 'write', body: (args) => (effects.push(String(args.tag)), 'written') }));
    rt.on('tools/post-execute', (exec, _outcome, next) =>
      exec.name === 'write' ? block('writes need review') : next(),
    );
    const result = await runCode(rt, catching('tools.write({ tag: "w1" })'));
    expect(runValue(result).result).toMatchObject({
      code: 'BLOCKED',
      message: 'writes need review',
      toolName: 'write',
    });
    expect(effects).toEqual(['w1']); // side effects are not rolled back
  });

  it('an invalid tool output is INVALID_TOOL_OUTPUT in the program', async () => {
    const rt = runtime();
    rt.register(
      defineTool({
        name: 'liar',
        description: 'Claims a number, returns a string.',
        parameters: {},
        output: { schema: { type: 'number' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
        execute: () => 'not a number' as unknown as number,
      }),
    );
    const result = await runCode(rt, catching('tools.liar({})'));
    const caught = runValue(result).result as { code: string; message: string };
    expect(caught.code).toBe('INVALID_TOOL_OUTPUT');
    expect(caught.message).toMatch(/does not match its output schema/);
  });

  it("invalid arguments are INVALID_ARGS and the body does not run; a tool's own error code is kept", async () => {
    const rt = runtime();
    let bodies = 0;
    rt.register(
      defineTool({
        name: 'strict',
        description: 'Needs n.',
        parameters: { n: { type: 'integer', required: true } },
        output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'ok' }] },
        execute: ({ n }) => {
          bodies += 1;
          if (n < 0) throw Object.assign(new Error('n must be positive'), { code: 'NEGATIVE' });
          return n;
        },
      }),
    );
    const result = await runCode(
      rt,
      `
      const codes = [];
      for (const args of [{ n: 'x' }, {}, { n: -1 }]) {
        try { await tools.strict(args); codes.push('ok'); } catch (e) { codes.push(e.code); }
      }
      return codes;`,
    );
    expect(runValue(result).result).toEqual(['INVALID_ARGS', 'INVALID_ARGS', 'NEGATIVE']);
    expect(bodies).toBe(1);
  });

  it('around dispatch: the timeout policy gives a nested call TOOL_TIMEOUT; finalizeContent and observers apply', async () => {
    const rt = runtime(); // the runtime's own timeout policy, on by default
    let settled = false;
    rt.register(
      defineTool({
        name: 'sluggish',
        description: 'Waits for its signal.',
        parameters: {},
        output: { schema: { type: 'json' }, render: () => [{ type: 'text', text: 'never' }] },
        timeoutMs: 50,
        execute: async (_args, exec) => {
          await untilAborted(exec.signal);
          settled = true;
          throw exec.signal.reason;
        },
      }),
    );
    rt.register(
      defineTool({
        name: 'finalized',
        description: 'Has a last-mile content transform.',
        parameters: {},
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        finalizeContent: (content) => [...content, { type: 'text', text: '(finalized)' }],
        execute: () => 'value',
      }),
    );
    const wrapped: string[] = [];
    rt.on('tools/execute', (exec, next) => {
      if (exec.parent !== undefined) wrapped.push(exec.callId);
      return next();
    });
    const finalContent = new Map<string, string>();
    rt.on('tools/result', (r) => {
      finalContent.set(r.callId, r.content.map((b) => (b.type === 'text' ? b.text : '')).join('|'));
    });
    const result = await runCode(
      rt,
      `
      let timeout;
      try { await tools.sluggish({}); } catch (e) { timeout = e.code; }
      return { timeout, value: await tools.finalized({}) };`,
    );
    expect(runValue(result).result).toEqual({ timeout: 'TOOL_TIMEOUT', value: 'value' });
    expect(settled).toBe(true);
    expect(wrapped).toEqual(['rc:ptc:1', 'rc:ptc:2']);
    expect(finalContent.get('rc:ptc:2')).toBe('value|(finalized)');
  });

  it('arguments that are not lossless JSON are refused inside the sandbox, before dispatch', async () => {
    const rt = runtime();
    rt.register(probeTool({ name: 'alpha' }));
    const preSeen: string[] = [];
    rt.on('tools/pre-execute', (exec, next) => {
      preSeen.push(exec.callId);
      return next();
    });
    const result = await runCode(rt, catching('tools.alpha({ list: [1, undefined] })'));
    expect(runValue(result).result).toMatchObject({ code: 'INVALID_ARGS', toolName: 'alpha' });
    expect(preSeen).toEqual(['rc']);
  });
});

describe('scheduling of nested calls', () => {
  it('two consecutive concurrency-safe calls overlap', async () => {
    const rt = runtime();
    const recorder = new OverlapRecorder();
    let release: () => void = () => {};
    const bothIn = new Promise<void>((resolve) => (release = resolve));
    rt.register(
      probeTool({
        name: 'safe',
        safe: true,
        body: async (args) => {
          const id = String(args.tag);
          recorder.enter(id, true);
          if (recorder.running.size === 2) release();
          // Waits for the other body; the fallback only bounds a failing run.
          await atMost(bothIn, 5000);
          recorder.exit(id);
          return id;
        },
      }),
    );
    const result = await runCode(rt, 'return await Promise.all([tools.safe({ tag: "a" }), tools.safe({ tag: "b" })])');
    expect(runValue(result).result).toEqual(['a', 'b']);
    expect(recorder.maxParallel).toBe(2);
    expect(recorder.violations).toEqual([]);
  });

  it('an exclusive call overlaps nothing: the calls before it finish first, the calls after it wait', async () => {
    const rt = runtime();
    const recorder = new OverlapRecorder();
    const body = (parallel: boolean) => async (args: { readonly [key: string]: JsonValue }) => {
      const id = String(args.tag);
      recorder.enter(id, parallel);
      await sleep(15); // long enough for a wrongly scheduled neighbour to start
      recorder.exit(id);
      return id;
    };
    rt.register(probeTool({ name: 'safe', safe: true, body: body(true) }));
    rt.register(probeTool({ name: 'excl', body: body(false) }));
    const program = `return await Promise.all([
      tools.safe({ tag: 's1' }), tools.safe({ tag: 's2' }), tools.excl({ tag: 'x' }), tools.safe({ tag: 's3' }), tools.safe({ tag: 's4' }),
    ])`;
    const result = await runCode(rt, program);
    expect(runValue(result).result).toEqual(['s1', 's2', 'x', 's3', 's4']);
    expect(recorder.violations).toEqual([]);
    const at = (event: string): number => recorder.events.indexOf(event);
    expect(at('start:x')).toBeGreaterThan(Math.max(at('end:s1'), at('end:s2')));
    expect(Math.min(at('start:s3'), at('start:s4'))).toBeGreaterThan(at('end:x'));
    expect(recorder.maxParallel).toBe(2);
  });

  it('overlap is capped by maxConcurrentCalls', async () => {
    const rt = runtime({ limits: { maxConcurrentCalls: 2 } });
    const recorder = new OverlapRecorder();
    rt.register(
      probeTool({
        name: 'safe',
        safe: true,
        body: async (args) => {
          recorder.enter(String(args.tag), true);
          await sleep(10);
          recorder.exit(String(args.tag));
          return 1;
        },
      }),
    );
    const result = await runCode(
      rt,
      'return (await Promise.all([1, 2, 3, 4, 5].map((i) => tools.safe({ tag: String(i) })))).length',
    );
    expect(runValue(result).result).toBe(5);
    expect(recorder.maxParallel).toBe(2);
  });

  it('results commit in submission order even when a later body finishes first', async () => {
    const rt = runtime();
    let releaseSlow: () => void = () => {};
    const slowReleased = new Promise<void>((resolve) => (releaseSlow = resolve));
    const finished: string[] = [];
    rt.register(
      probeTool({
        name: 'safe',
        safe: true,
        body: async (args) => {
          if (args.tag === 'slow') await atMost(slowReleased, 5000);
          finished.push(String(args.tag));
          if (args.tag === 'fast') releaseSlow();
          return String(args.tag);
        },
      }),
    );
    const observed: string[] = [];
    const posts: string[] = [];
    rt.on('tools/post-execute', (exec, _o, next) => {
      posts.push(exec.callId);
      return next();
    });
    rt.on('tools/result', (r) => {
      observed.push(r.callId);
    });
    const result = await runCode(
      rt,
      'return await Promise.all([tools.safe({ tag: "slow" }), tools.safe({ tag: "fast" })])',
    );
    expect(runValue(result).result).toEqual(['slow', 'fast']);
    expect(finished).toEqual(['fast', 'slow']);
    expect(posts).toEqual(['rc:ptc:1', 'rc:ptc:2', 'rc']);
    expect(observed).toEqual(['rc:ptc:1', 'rc:ptc:2', 'rc']);
  });
});
