// Replay presents the call tree exactly as it was presented live (property): for random
// turns of run_code programs (sequential and Promise.all calls, failures, policy
// denials, composite tools making their own nested calls, programs that throw) and
// direct calls, the tree built from `tools/result` observers while the turn runs equals
// the tree `replayJournal` builds from each store in a fresh runtime.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import {
  createMemoryJournal,
  createToolRuntime,
  defineTool,
  deny,
  presentationTree,
  presentExecution,
  type ExecutionPresentation,
  type Journal,
  type ToolResult,
} from '../../src/index.ts';
import type { ToolRuntime } from '../../src/runtime/create-tool-runtime.ts';
import type { TurnCall } from '../../src/scheduler/execute-turn.ts';
import { replayJournal } from '../../src/journal/replay-journal.ts';
import { freshStore, openStore, STORE_KINDS, startStoreServers, stopStoreServers } from './fixtures/stores.ts';

let sandbox: Sandbox | undefined;
let dir: string | undefined;
beforeAll(() => startStoreServers(), 120_000);
afterAll(async () => {
  await stopStoreServers();
  await sandbox?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** The same tools in the live runtime and in the replaying one. */
function registerTools(rt: ToolRuntime): void {
  rt.register(
    defineTool({
      name: 'probe',
      description: 'Returns n, or fails.',
      parameters: { n: { type: 'integer', required: true }, fail: { type: 'boolean' } },
      output: {
        schema: { type: 'object', additionalProperties: false, properties: { n: { type: 'integer', required: true } } },
        render: (_a, v) => [{ type: 'text', text: `n=${v.n}` }],
      },
      isConcurrencySafe: () => true,
      presentCall: (args) => ({ title: `Probe ${args.n}` }),
      presentResult: (args, result) => ({
        n: args.n,
        ok: !result.isError,
        text: result.content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
      }),
      execute: async (args) => {
        await new Promise((resolve) => setImmediate(resolve));
        if (args.fail === true) throw new Error(`probe ${args.n} failed`);
        return { n: args.n };
      },
    }),
  );
  rt.register(
    defineTool({
      name: 'slow',
      description: 'Exclusive.',
      parameters: { n: { type: 'integer', required: true } },
      output: { schema: { type: 'json' }, render: (_a, v) => [{ type: 'text', text: JSON.stringify(v) }] },
      execute: async (args) => {
        for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
        return { slow: args.n };
      },
    }),
  );
  rt.register(
    defineTool({
      name: 'secret',
      description: 'Always denied by policy.',
      parameters: {},
      output: { schema: { type: 'json' }, render: () => [] },
      execute: () => 'leaked',
    }),
  );
  rt.register(
    defineTool({
      name: 'note',
      description: 'Defers a context.',
      parameters: { text: { type: 'string', required: true } },
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      execute: (args, exec) => {
        exec.deferContext({ role: 'user', content: [{ type: 'text', text: args.text }] });
        return args.text;
      },
    }),
  );
  rt.register(
    defineTool({
      name: 'combo',
      description: 'Composite: k probes at once, then the secret when k is odd.',
      parameters: { k: { type: 'integer', required: true } },
      output: { schema: { type: 'json' }, render: (_a, v) => [{ type: 'text', text: JSON.stringify(v) }] },
      isConcurrencySafe: () => true,
      presentCall: (args) => ({ title: `Combo of ${args.k}` }),
      execute: async (args, exec) => {
        const probes = await Promise.all(
          Array.from({ length: args.k }, (_, i) => exec.callTool('probe', { n: 100 + i })),
        );
        const secret = args.k % 2 === 1 ? [(await exec.callTool('secret', {})).error?.code ?? 'ok'] : [];
        return [...probes.map((p) => p.value ?? null), ...secret];
      },
    }),
  );
}

type Call =
  | { readonly tool: 'probe'; readonly n: number; readonly fail: boolean }
  | { readonly tool: 'slow'; readonly n: number }
  | { readonly tool: 'secret' }
  | { readonly tool: 'note'; readonly text: string }
  | { readonly tool: 'combo'; readonly k: number };
type Step = { readonly all: false; readonly call: Call } | { readonly all: true; readonly calls: readonly Call[] };
type Entry = { readonly program: readonly Step[]; readonly throwAtEnd: boolean } | { readonly direct: Call };

const callArb: fc.Arbitrary<Call> = fc.oneof(
  fc.record({ tool: fc.constant('probe' as const), n: fc.nat({ max: 50 }), fail: fc.boolean() }),
  fc.record({ tool: fc.constant('slow' as const), n: fc.nat({ max: 9 }) }),
  fc.constant({ tool: 'secret' as const }),
  fc.record({ tool: fc.constant('note' as const), text: fc.constantFrom('alpha', 'beta') }),
  fc.record({ tool: fc.constant('combo' as const), k: fc.nat({ max: 3 }) }),
);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ all: fc.constant(false as const), call: callArb }),
  fc.record({ all: fc.constant(true as const), calls: fc.array(callArb, { minLength: 1, maxLength: 3 }) }),
);
const entryArb: fc.Arbitrary<Entry> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ program: fc.array(stepArb, { maxLength: 5 }), throwAtEnd: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ direct: callArb }) },
);

const argsOf = (c: Call): Record<string, unknown> => {
  const { tool: _tool, ...args } = c;
  return c.tool === 'probe' && !c.fail ? { n: c.n } : args;
};
const sdkCall = (c: Call): string => `tools.${c.tool}(${JSON.stringify(argsOf(c))})`;

function programOf(steps: readonly Step[], throwAtEnd: boolean): string {
  const lines = ['const out = [];'];
  for (const step of steps) {
    if (step.all)
      lines.push(`out.push((await Promise.allSettled([${step.calls.map(sdkCall).join(', ')}])).map((s) => s.status));`);
    else lines.push(`try { out.push(await ${sdkCall(step.call)}); } catch (e) { out.push(e.code); }`);
  }
  if (throwAtEnd) lines.push('throw new Error("the program gives up");');
  lines.push('return out;');
  return lines.join('\n');
}

function turnOf(entries: readonly Entry[]): TurnCall[] {
  return entries.map((e, i) =>
    'direct' in e
      ? { callId: `t${i}`, name: e.direct.tool, arguments: argsOf(e.direct) }
      : {
          callId: `t${i}`,
          name: 'run_code',
          arguments: { description: `Program ${i}`, code: programOf(e.program, e.throwAtEnd) },
        },
  );
}

/** Runs the turn live; returns the presentations the observers built, in the order they saw results. */
async function runLive(
  journal: Journal,
  calls: readonly TurnCall[],
): Promise<{ live: ExecutionPresentation[]; results: readonly ToolResult[] }> {
  sandbox ??= createSandbox();
  const rt = createToolRuntime({ mode: 'both', sandbox, journal });
  registerTools(rt);
  rt.on('tools/pre-execute', (exec, next) => (exec.name === 'secret' ? deny('secrets stay secret') : next()));
  const live: ExecutionPresentation[] = [];
  rt.on('tools/result', (result, exec) => void live.push(presentExecution(rt, exec, result)));
  const turn = await rt.executeTurn(calls);
  await rt.close();
  return { live, results: turn.results };
}

const byCallId = (list: readonly ExecutionPresentation[]) => [...list].sort((a, b) => a.callId.localeCompare(b.callId));

describe('nested replay equals the live presentation (property)', () => {
  it.each(['memory', ...STORE_KINDS] as const)(
    '%s store: same tree, same presentations, nothing interrupted',
    async (kind) => {
      dir ??= await mkdtemp(join(tmpdir(), 'ptc-nested-replay-'));
      let run = 0;
      const depths = new Set<number>();
      await fc.assert(
        fc.asyncProperty(fc.array(entryArb, { minLength: 1, maxLength: 3 }), async (entries) => {
          run += 1;
          const store =
            kind === 'memory'
              ? { journal: createMemoryJournal(), close: async () => {} }
              : openStore(kind, await freshStore(dir!, kind, `${kind}-${run}`));
          const calls = turnOf(entries);
          const { live, results } = await runLive(store.journal, calls);
          expect(results.map((r) => r.callId)).toEqual(calls.map((c) => c.callId));

          // A fresh runtime configured like the live one (its sandbox is never started: replay runs nothing).
          const fresh = createToolRuntime({ mode: 'both' });
          registerTools(fresh);
          const replay = await replayJournal(store.journal, fresh);
          await fresh.close();
          expect(replay.interrupted).toEqual([]);
          expect(replay.warnings).toEqual([]);
          expect(replay.tree).toEqual(presentationTree(live));
          expect(byCallId(replay.executions)).toEqual(byCallId(live));
          // The roots are the turn's calls, in model order; every nested call sits under its parent.
          expect(replay.tree.map((n) => n.presentation.callId)).toEqual(calls.map((c) => c.callId));
          for (const e of replay.executions) {
            if (e.parentCallId !== undefined) expect(e.callId.startsWith(`${e.parentCallId}:`)).toBe(true);
            depths.add(e.callId.split(':').length);
          }
          await store.close();
        }),
        { numRuns: kind === 'memory' ? 30 : 12 },
      );
      // The runs did reach nested calls and a composite's calls inside a program.
      expect([...depths].sort()).toEqual(expect.arrayContaining([1, 3, 5]));
    },
  );
});
