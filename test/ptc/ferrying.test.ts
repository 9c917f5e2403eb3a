// What nested calls hand up to the run_code result: deferred contexts in
// submission order, image content of a success as a deferred context, concludesTurn;
// kept when the program later fails, dropped when run_code itself is blocked.
import { describe, expect, it } from '@jest/globals';
import { accept, block, defineTool, type ContextMessage } from '../../src/index.ts';
import { atMost, contextTexts, probeTool, ptcRuntimes, runCode, runValue, userText } from './helpers.ts';
import type { ToolRuntime } from '../../src/runtime/create-tool-runtime.ts';

const runtime = ptcRuntimes();

/** `note`: defers one context per entry of `args.notes`; `args.conclude` concludes; `args.fail` throws after all that. */
/** With `gate`, the `slow` call waits until the `fast` call's body has finished. */
function withNoteTool(
  rt: ToolRuntime,
  options: {
    readonly safe?: boolean;
    readonly gate?: { readonly wait: Promise<void>; readonly open: () => void };
  } = {},
): ToolRuntime {
  rt.register(
    probeTool({
      name: 'note',
      safe: options.safe === true,
      body: async (args, exec) => {
        if (args.tag === 'slow' && options.gate !== undefined) await atMost(options.gate.wait, 5000);
        for (const text of (args.notes as string[] | undefined) ?? []) exec.deferContext(userText(text));
        if (args.conclude === true) exec.concludeTurn();
        if (args.tag === 'fast') options.gate?.open();
        if (args.fail === true) throw new Error('note failed on purpose');
        return String(args.tag ?? '');
      },
    }),
  );
  return rt;
}

const PIXEL = 'iVBORw0KGgo=';

describe('contexts', () => {
  it('are ferried onto the run_code result in submission order, with post-execute additions in place', async () => {
    let open: () => void = () => {};
    const wait = new Promise<void>((resolve) => (open = resolve));
    const finished: string[] = [];
    const rt = withNoteTool(runtime(), { safe: true, gate: { wait, open } });
    rt.on('tools/post-execute', (exec, _outcome, next) =>
      exec.callId === 'rc:ptc:1' ? accept({ additionalContexts: [userText('post-1')] }) : next(),
    );
    rt.on('tools/execute', async (exec, next) => {
      const result = await next();
      finished.push(exec.callId);
      return result;
    });
    const result = await runCode(
      rt,
      `
      await Promise.all([
        tools.note({ tag: 'slow', notes: ['1a', '1b'] }),
        tools.note({ tag: 'fast', notes: ['2a'] }),
      ]);
      await tools.note({ notes: ['3a'] });
      return 'done';`,
    );
    expect(runValue(result).result).toBe('done');
    expect(finished).toEqual(['rc:ptc:2', 'rc:ptc:1', 'rc:ptc:3', 'rc']); // the second body finished first
    expect(contextTexts(result.additionalContexts)).toEqual(['1a', '1b', 'post-1', '2a', '3a']);
  });

  it('reach the turn inbox after all results, in model order, when run_code runs in a turn', async () => {
    const rt = withNoteTool(runtime({ mode: 'both' }));
    const turn = await rt.executeTurn([
      { callId: 'n1', name: 'note', arguments: { notes: ['direct'] } },
      {
        callId: 'r1',
        name: 'run_code',
        arguments: {
          description: 'Take notes',
          code: 'await tools.note({ notes: ["nested-1"] }); await tools.note({ notes: ["nested-2"] });',
        },
      },
    ]);
    expect(turn.results.map((r) => [r.callId, r.isError])).toEqual([
      ['n1', false],
      ['r1', false],
    ]);
    expect(contextTexts(turn.additionalContexts)).toEqual(['direct', 'nested-1', 'nested-2']);
  });

  it("of a nested call blocked by post-execute are dropped (only the block's own contexts are ferried)", async () => {
    const rt = withNoteTool(runtime());
    rt.on('tools/post-execute', (exec, _outcome, next) =>
      exec.callId === 'rc:ptc:2' ? block('no', { additionalContexts: [userText('from-block')] }) : next(),
    );
    const result = await runCode(
      rt,
      `
      await tools.note({ notes: ['kept'] });
      try { await tools.note({ notes: ['dropped'] }); } catch (e) { console.log(e.code); }`,
    );
    expect(runValue(result).logs).toEqual(['BLOCKED']);
    expect(contextTexts(result.additionalContexts)).toEqual(['kept', 'from-block']);
  });

  it('survive a later failure of the program: CODE_RUN_FAILED (exception) still carries them', async () => {
    const rt = withNoteTool(runtime());
    const result = await runCode(
      rt,
      `
      await tools.note({ notes: ['before the throw'] });
      console.log('about to throw');
      throw new Error('program gave up');`,
    );
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe('CODE_RUN_FAILED');
    expect(result.error?.info?.kind).toBe('exception');
    expect(contextTexts(result.additionalContexts)).toEqual(['before the throw']);
    expect(result).not.toHaveProperty('concludesTurn');
  });

  it('are dropped when run_code itself is blocked by post-execute', async () => {
    const rt = withNoteTool(runtime());
    rt.on('tools/post-execute', (exec, _outcome, next) =>
      exec.name === 'run_code'
        ? block('the program touched too much', { additionalContexts: [userText('review please')] })
        : next(),
    );
    const result = await runCode(rt, 'await tools.note({ notes: ["ferried"], conclude: true }); return 1');
    expect(result.error).toEqual({ code: 'BLOCKED', message: 'the program touched too much' });
    expect(contextTexts(result.additionalContexts)).toEqual(['review please']);
    expect(result).not.toHaveProperty('concludesTurn');
  });

  it("are visible to run_code's own post-execute handler before it decides", async () => {
    const rt = withNoteTool(runtime());
    let seen: readonly ContextMessage[] | undefined;
    rt.on('tools/post-execute', (exec, outcome, next) => {
      if (exec.name === 'run_code') seen = outcome.additionalContexts;
      return next();
    });
    await runCode(rt, 'await tools.note({ notes: ["x"] })');
    expect(contextTexts(seen)).toEqual(['x']);
  });
});

describe('images', () => {
  it('image content of a nested success becomes a deferred context; the program gets the value', async () => {
    const rt = runtime();
    rt.register(
      defineTool({
        name: 'snapshot',
        description: 'Takes a picture.',
        parameters: { label: { type: 'string', required: true } },
        output: {
          schema: {
            type: 'object',
            additionalProperties: false,
            properties: { label: { type: 'string', required: true } },
          },
          render: (_args, value) => [
            { type: 'text', text: `picture ${value.label}` },
            { type: 'image', data: PIXEL, mimeType: 'image/png' },
          ],
        },
        execute: ({ label }, exec) => {
          exec.deferContext(userText(`note ${label}`));
          return { label };
        },
      }),
    );
    const result = await runCode(
      rt,
      'const a = await tools.snapshot({ label: "a" }); const b = await tools.snapshot({ label: "b" }); return [a, b]',
    );
    expect(runValue(result).result).toEqual([{ label: 'a' }, { label: 'b' }]);
    expect(result.additionalContexts).toEqual([
      userText('note a'),
      { role: 'user', content: [{ type: 'image', data: PIXEL, mimeType: 'image/png' }] },
      userText('note b'),
      { role: 'user', content: [{ type: 'image', data: PIXEL, mimeType: 'image/png' }] },
    ]);
    // The run's own content stays text.
    expect(result.content.every((b) => b.type === 'text')).toBe(true);
  });
});

describe('concludesTurn', () => {
  it('an inner concludesTurn is forwarded to the run_code result and ends the turn', async () => {
    const rt = withNoteTool(runtime({ mode: 'both' }));
    const direct = await runCode(rt, 'await tools.note({ conclude: true }); return "bye"');
    expect(direct.isError).toBe(false);
    expect(direct.concludesTurn).toBe(true);
    const turn = await rt.executeTurn([
      {
        callId: 't1',
        name: 'run_code',
        arguments: { description: 'Finish', code: 'await tools.note({ conclude: true })' },
      },
    ]);
    expect(turn.concludesTurn).toBe(true);
  });

  it('is not forwarded from a nested failure, and a failed run never concludes', async () => {
    const rt = withNoteTool(runtime());
    const failedInner = await runCode(
      rt,
      'try { await tools.note({ conclude: true, fail: true }); } catch { return "caught"; }',
    );
    expect(runValue(failedInner).result).toBe('caught');
    expect(failedInner).not.toHaveProperty('concludesTurn');
    const failedRun = await runCode(rt, 'await tools.note({ conclude: true }); throw new Error("then failed")');
    expect(failedRun.error?.code).toBe('CODE_RUN_FAILED');
    expect(failedRun).not.toHaveProperty('concludesTurn');
  });
});
