// The whole benchmark: every task in each mode, each mode on its own runtime with the
// fifteen retail tools over a session store that is fresh per task.
import { createToolRuntime } from '../../src/index.ts';
import type { Message, TaskModel } from './model.ts';
import { plannedActions } from './agent-plan.ts';
import { NativeOracle } from './native-oracle.ts';
import { PtcOracle } from './ptc-oracle.ts';
import { MODES, type Mode, type Tau2Report, totals } from './report.ts';
import { readDataFile } from './data-file.ts';
import { parseDb, readDbText, variantRanks } from './retail-db.ts';
import { RetailStore } from './retail-store.ts';
import { type ConversationLimits, type TaskContext, type TaskRun, runTask } from './run-task.ts';
import type { RetailTask } from './tasks.ts';
import { type RetailSession, retailTools } from './tools.ts';

export interface Tau2Data {
  readonly dbText: string;
  readonly policy: string;
  readonly ranks: ReadonlyMap<string, number>;
}

export const loadData = (dir: string): Tau2Data => {
  const dbText = readDbText(dir);
  return { dbText, policy: readDataFile(dir, 'policy.md'), ranks: variantRanks(dbText) };
};

/** A runtime for `mode` with the fifteen tools registered over a session store (close its `rt` when done). */
export function taskContext(mode: Mode, data: Tau2Data): TaskContext {
  const session: RetailSession = { store: new RetailStore(parseDb(data.dbText)) };
  const rt = createToolRuntime(mode === 'ptc' ? { mode: 'ptc' } : { mode: 'native', sandbox: false });
  for (const tool of retailTools(session, data.ranks)) rt.register(tool);
  return { rt, session, dbText: data.dbText, policy: data.policy };
}

/** The scripted model of `mode` for a task. */
export function oracle(mode: Mode, task: RetailTask, data: Tau2Data): TaskModel {
  const plan = plannedActions(task, data.dbText, data.ranks);
  if (mode === 'ptc') return new PtcOracle(plan, data.dbText);
  return new NativeOracle(plan, mode === 'nativeParallel');
}

export async function runBenchmark(
  data: Tau2Data,
  tasks: readonly RetailTask[],
  options: {
    readonly modes?: readonly Mode[];
    /** A live model for each task run (default: the scripted oracles). */
    readonly model?: (mode: Mode, task: RetailTask) => TaskModel;
    /** Where a conversation is cut off (live runs). */
    readonly limits?: ConversationLimits;
    readonly onProgress?: (done: number, total: number) => void;
    readonly onTranscript?: (mode: Mode, taskId: string, messages: readonly Message[]) => void;
  } = {},
): Promise<Tau2Report> {
  const modes = options.modes ?? MODES;
  const runs = new Map<Mode, TaskRun[]>(MODES.map((m) => [m, []]));
  for (const mode of modes) {
    const onTranscript = options.onTranscript;
    const ctx: TaskContext = {
      ...taskContext(mode, data),
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(onTranscript === undefined
        ? {}
        : { onTranscript: (id: string, m: readonly Message[]) => onTranscript(mode, id, m) }),
    };
    try {
      for (const task of tasks) {
        const model = options.model?.(mode, task) ?? oracle(mode, task, data);
        runs.get(mode)?.push(await runTask(ctx, task, model));
        options.onProgress?.(
          (runs.get(mode)?.length ?? 0) + modes.indexOf(mode) * tasks.length,
          modes.length * tasks.length,
        );
      }
    } finally {
      await ctx.rt.close();
    }
  }
  const failures = MODES.flatMap((mode) =>
    (runs.get(mode) ?? []).filter((r) => !r.passed).map((r) => ({ id: r.id, mode, failure: r.failure ?? '' })),
  );
  return {
    tasks: tasks.length,
    native: totals(runs.get('native') ?? []),
    nativeParallel: totals(runs.get('nativeParallel') ?? []),
    ptc: totals(runs.get('ptc') ?? []),
    failures,
  };
}
