// The τ²-bench retail harness (bench/tau2): the fifteen tools against upstream's recorded
// messages and database hashes, a few tasks run through the runtime in every mode and
// graded, and the grading catching a wrong database change.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { checkAgainstUpstream, loadSample } from '../../bench/tau2/fidelity.ts';
import { NativeOracle } from '../../bench/tau2/native-oracle.ts';
import { calculate, MAX_NESTING } from '../../bench/tau2/calculate.ts';
import { pyFloat, pyRound2 } from '../../bench/tau2/py-json.ts';
import { loadData, runBenchmark, type Tau2Data, taskContext } from '../../bench/tau2/run-bench.ts';
import { runTask, type TaskContext } from '../../bench/tau2/run-task.ts';
import { loadTasks, type GoldAction, type RetailTask } from '../../bench/tau2/tasks.ts';

/** Order, item/product, user and payment-method ids as they appear in arguments and programs. */
const ID_LITERAL = /#W\d{7}|\b\d{10}\b|\b[a-z]+_[a-z]+_\d{4}\b|\b(?:credit_card|gift_card|paypal)_\d{7}\b/g;

const DATA = fileURLToPath(new URL('./fixtures/tau2-retail', import.meta.url));
let data: Tau2Data;
let tasks: RetailTask[];
const task = (id: string): RetailTask => {
  const t = tasks.find((x) => x.id === id);
  if (t === undefined) throw new Error(`no task ${id}`);
  return t;
};

beforeAll(() => {
  data = loadData(DATA);
  tasks = loadTasks(DATA);
});

describe('Python number forms', () => {
  it('rounds to hundredths as Python does, ties to even', () => {
    expect([0.125, 0.375, 2.675, 1.005, -0.125, 0.001].map(pyRound2)).toEqual([0.12, 0.38, 2.67, 1.0, -0.12, 0]);
    expect([5, 0.1 + 0.2, 1e16, 1e-5, 3e20, -0].map(pyFloat)).toEqual([
      '5.0',
      '0.30000000000000004',
      '1e+16',
      '1e-05',
      '3e+20',
      '-0.0',
    ]);
    expect(calculate('(10 - 2.5) / 3')).toBe('2.5');
    expect(() => calculate('2 ** x')).toThrow('Invalid characters in expression');
  });

  it('refuses what it cannot compute in bounded time and stack, saying why', () => {
    expect(() => calculate('9 ** 9 ** 9')).toThrow('int too large to convert to float');
    const deep = (n: number): string => `${'('.repeat(n)}1${')'.repeat(n)}`;
    expect(calculate(deep(MAX_NESTING))).toBe('1.0');
    expect(() => calculate(deep(MAX_NESTING + 1))).toThrow('too many nested parentheses');
    expect(() => calculate(`${'-'.repeat(MAX_NESTING + 1)}1`)).toThrow('too many nested operators');
    expect(calculate(Array(100_000).fill('1').join(' + '))).toBe('100000.0');
  });
});

describe('retail tools against upstream', () => {
  it('give upstream messages, errors and database hashes on recorded tasks and scenarios', () => {
    const sample = loadSample();
    expect(sample.scenarios.length).toBeGreaterThan(8);
    const recorded = ['0', '1', '2', '3', '40', '41'].map(task);
    expect(checkAgainstUpstream(data.dbText, data.ranks, recorded, sample)).toEqual([]);
  });

  it('reports a message that differs from the recording', () => {
    const sample = loadSample();
    const first = sample.scenarios[0];
    if (first === undefined) throw new Error('no scenarios');
    const altered = {
      ...sample,
      tasks: {},
      scenarios: [
        { ...first, calls: first.calls.map((c, i) => (i === 0 ? { ...c, content: 'Error: Something else' } : c)) },
      ],
    };
    expect(checkAgainstUpstream(data.dbText, data.ranks, [], altered)).toEqual([
      expect.stringContaining(`${first.title} #0`),
    ]);
  });
});

describe('grading', () => {
  let ctx: TaskContext;
  beforeAll(() => {
    ctx = taskContext('native', data);
  });
  afterAll(async () => {
    await ctx.rt.close();
  });
  const withActions = (actions: readonly GoldAction[]) => new NativeOracle(actions, false);

  it('passes the gold actions and extra reads, fails a wrong or missing write', async () => {
    const t = task('0'); // one exchange of two items in a delivered order
    const gold = t.evaluation_criteria.actions;
    expect((await runTask(ctx, t, withActions(gold))).passed).toBe(true);
    const extraRead: GoldAction = {
      action_id: 'x',
      name: 'get_user_details',
      arguments: { user_id: 'yusuf_rossi_9620' },
    };
    expect((await runTask(ctx, t, withActions([extraRead, ...gold]))).passed).toBe(true);
    const write = gold.at(-1) as GoldAction;
    const wrong = { ...write, arguments: { ...write.arguments, new_item_ids: ['7706410293', '7747408585'].reverse() } };
    const wrongRun = await runTask(ctx, t, withActions([...gold.slice(0, -1), wrong]));
    expect(wrongRun.passed).toBe(false); // the exchange fails (items swapped across products): nothing changed
    expect(wrongRun.failure).toMatch(/database differs/);
    const otherPayment = {
      ...write,
      arguments: { ...write.arguments, item_ids: ['1151293680'], new_item_ids: ['7706410293'] },
    };
    expect((await runTask(ctx, t, withActions([...gold.slice(0, -1), otherPayment]))).passed).toBe(false);
    expect((await runTask(ctx, t, withActions(gold.slice(0, -1)))).passed).toBe(false);
  });
});

describe('harness', () => {
  it('runs a few tasks in every mode through the runtime, all graded passed; programs use only ids the model saw', async () => {
    const sample = ['0', '4', '40', '72'].map(task);
    const unseen: string[] = [];
    const report = await runBenchmark(data, sample, {
      onTranscript: (mode, id, messages) => {
        if (mode !== 'ptc') return;
        messages.forEach((m, k) => {
          if (m.role !== 'assistant') return;
          const before = JSON.stringify(messages.slice(0, k));
          for (const block of m.content)
            if (block.type === 'tool_use')
              for (const literal of JSON.stringify(block.input).match(ID_LITERAL) ?? [])
                if (!before.includes(literal)) unseen.push(`task ${id}: ${literal}`);
        });
      },
    });
    expect(report.failures).toEqual([]);
    expect(unseen).toEqual([]);
    for (const mode of ['native', 'nativeParallel', 'ptc'] as const) {
      expect(report[mode].passed).toBe(sample.length);
      expect(report[mode].contextTokens).toBeGreaterThan(0);
      expect(report[mode].totalTokens).toBeGreaterThan(report[mode].contextTokens);
    }
    expect(report.nativeParallel.modelRequests).toBeLessThan(report.native.modelRequests);
    expect(report.ptc.modelRequests).toBeLessThan(report.nativeParallel.modelRequests);
    // Programs return what the next decision needs, not whole records.
    expect(report.ptc.resultTokens * 5).toBeLessThan(report.native.resultTokens);
  }, 120_000);
});
