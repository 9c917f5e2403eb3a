// Paused runs as MCP Tasks (the SDK's experimental tasks API, behind its TaskStore and
// TaskMessageQueue interfaces). A run_code call made as a task answers at once with a
// task; the run goes on in this process, apart from the request. Its status follows the
// run: working, input_required while it is paused for approval (the question waits in
// the task's queue until the client calls tasks/result, and the answer resumes the run
// here), then completed, failed or cancelled.
// The task id is 128 random bits and the run_code call's callId is `mcp-task-<taskId>`,
// so the journal, which records the call and its durable run, is the task's record: after
// a restart, or on another server of a PostgreSQL journal, the task is found by that
// callId (status from the run, result from the call's journaled result). What only this
// process knows: a task whose run has not started yet, the question in its queue, and
// every task of a runtime without a journal.
import { randomBytes } from 'node:crypto';
import type {
  CreateTaskOptions,
  QueuedMessage,
  TaskMessageQueue,
  TaskStore,
} from '@modelcontextprotocol/sdk/experimental/tasks';
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  RELATED_TASK_META_KEY,
  type Result,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonValue } from '../json/json-value.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import type { PausedRun } from '../ptc/paused-run-text.ts';
import { DEFAULT_PAUSED_RUN_TTL_MS } from '../ptc/durable-run.ts';
import { RUN_CODE } from '../registry/tool-registry.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import type { RunOfCall, RunsScope } from '../runtime/durable-runs.ts';
import {
  askApproval,
  asksByForm,
  type ClientCapabilitiesSlot,
  MAX_ELICITATION_ROUNDS,
  pausedOf,
} from './elicit-approval.ts';

/** A task's run_code call is `mcp-task-<taskId>`: how the journal finds it again. */
export const TASK_CALL_ID_PREFIX = 'mcp-task-';
/** Tasks this process keeps in memory; past it a new task is refused until finished ones are dropped. */
export const MAX_LIVE_TASKS = 10_000;
/** Messages waiting in one task's queue (a paused run asks one question at a time). */
export const MAX_QUEUED_PER_TASK = 16;
/** The poll interval a task suggests to its client. */
export const TASK_POLL_INTERVAL_MS = 1000;
/** Tasks per tasks/list page. */
export const TASKS_PAGE_SIZE = 100;

const TASK_ID = /^[0-9a-f]{32}$/u;

/** Whose tasks a server sees: the agent it serves and the principal its client acts for. */
export interface TaskOwner {
  readonly agent: string | undefined;
  readonly principal: string | undefined;
}

/** What one MCP server (a connection, or one POST) gives the tasks it creates and reads. */
export interface TaskServerContext {
  readonly owner: TaskOwner;
  /** The client's capabilities: a task asks by elicitation only a client that declared it. */
  readonly capabilities: ClientCapabilitiesSlot;
  readonly elicitationTimeoutMs: number;
  /** The run_code result as the client gets it (wrapped as run_code's listing promised). */
  readonly toResult: (result: ToolResult) => CallToolResult;
}

interface LiveTask {
  readonly taskId: string;
  readonly owner: TaskOwner;
  readonly createdAt: number;
  updatedAt: number;
  status: Task['status'];
  statusMessage: string | undefined;
  result: CallToolResult | undefined;
  runId: string | undefined;
  /** The run goes on in this process now (running, asking, or resumed). */
  busy: boolean;
  /** Aborts the run (while it runs) and its question. */
  readonly controller: AbortController;
  readonly queue: QueuedMessage[];
  /** The pauses already asked about in this process (`runId@expiresAt`): each is asked once here. */
  readonly asked: Set<string>;
}

/** Paused runs as tasks, for every MCP server of one runtime in this process. */
export interface RunTasks {
  /** The task store and queue of one MCP server: its owner's tasks only. */
  forServer(context: TaskServerContext): { readonly store: TaskStore; readonly queue: TaskMessageQueue };
  /** Starts a run_code call as a task; resolves with the task once it is registered. */
  start(context: TaskServerContext, args: Readonly<Record<string, unknown>>): Task;
  /** Tasks kept in memory now (bounded by MAX_LIVE_TASKS). */
  readonly size: number;
}

const callIdOf = (taskId: string): string => `${TASK_CALL_ID_PREFIX}${taskId}`;
const sameOwner = (a: TaskOwner, b: TaskOwner): boolean => a.agent === b.agent && a.principal === b.principal;
const isTerminal = (status: Task['status']): boolean =>
  status === 'completed' || status === 'failed' || status === 'cancelled';
const pauseKey = (paused: PausedRun): string => `${paused.runId}@${paused.expiresAt}`;
const iso = (ms: number): string => new Date(ms).toISOString();

function pausedMessage(paused: PausedRun): string {
  const n = paused.pending.length;
  return (
    `run ${paused.runId} is paused: ${n === 1 ? '1 tool call awaits' : `${n} tool calls await`} approval ` +
    '(asked through tasks/result to a client with elicitation; an operator can also decide with ptc_resume or the approvals page)'
  );
}

const cancelledResult = (runId: string | undefined): CallToolResult => ({
  content: [
    {
      type: 'text',
      text: `The task was cancelled${runId === undefined ? '' : ` (run ${runId})`}: nothing more of its program runs.`,
    },
  ],
  isError: true,
});

/** The task as a journal's run shows it (status and result). */
function fromRun(
  taskId: string,
  run: RunOfCall,
  ttl: number,
  toResult: (result: ToolResult) => CallToolResult,
): { task: Task; result: CallToolResult | undefined } {
  const base = { taskId, ttl, createdAt: iso(run.startedAt), lastUpdatedAt: iso(run.updatedAt) };
  const withResult = run.result === undefined ? undefined : toResult(run.result);
  switch (run.status) {
    case 'running':
      return { task: { ...base, status: 'working', pollInterval: TASK_POLL_INTERVAL_MS }, result: undefined };
    case 'interrupted':
      return {
        task: {
          ...base,
          status: 'working',
          pollInterval: TASK_POLL_INTERVAL_MS,
          statusMessage: `run ${run.runId} was interrupted (its server stopped mid-run); an operator continues it with ptc_resume or ptc runs resume`,
        },
        result: undefined,
      };
    case 'paused': {
      const paused = run.result === undefined ? undefined : pausedOf(run.result);
      return {
        task: {
          ...base,
          status: 'input_required',
          pollInterval: TASK_POLL_INTERVAL_MS,
          ...(paused === undefined ? {} : { statusMessage: pausedMessage(paused) }),
        },
        result: undefined,
      };
    }
    case 'completed':
      return { task: { ...base, status: 'completed' }, result: withResult };
    case 'failed':
      return { task: { ...base, status: 'failed', statusMessage: 'the program failed' }, result: withResult };
    case 'expired':
      return {
        task: {
          ...base,
          status: 'failed',
          statusMessage: `run ${run.runId} stayed paused past its expiry (pausedRunTtlMs)`,
        },
        result: withResult,
      };
    case 'cancelled':
      return { task: { ...base, status: 'cancelled' }, result: cancelledResult(run.runId) };
  }
}

/**
 * Paused runs as MCP tasks for one runtime: share the result between every MCP server of
 * the runtime in this process (`createMcpServer({ tasks })`; `serveMcpHttp` makes one).
 */
export function createRunTasks(rt: ToolRuntime, options: { readonly maxLive?: number } = {}): RunTasks {
  const maxLive = options.maxLive ?? MAX_LIVE_TASKS;
  const live = new Map<string, LiveTask>();
  const ttl = (): number => rt.pausedRunTtlMs ?? DEFAULT_PAUSED_RUN_TTL_MS;
  const runsScope = (owner: TaskOwner): RunsScope => ({
    ...(owner.agent === undefined ? {} : { agent: owner.agent }),
    ...(owner.principal === undefined ? {} : { principal: owner.principal }),
  });

  const view = (task: LiveTask): Task => ({
    taskId: task.taskId,
    status: task.status,
    ttl: ttl(),
    createdAt: iso(task.createdAt),
    lastUpdatedAt: iso(task.updatedAt),
    ...(isTerminal(task.status) ? {} : { pollInterval: TASK_POLL_INTERVAL_MS }),
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
  });
  const setStatus = (task: LiveTask, status: Task['status'], message?: string): void => {
    if (isTerminal(task.status)) return;
    task.status = status;
    task.statusMessage = message;
    task.updatedAt = Date.now();
  };

  /** Finished tasks past their ttl leave memory (the journal still has their runs). */
  const prune = (): void => {
    const now = Date.now();
    for (const task of live.values())
      if (isTerminal(task.status) && task.updatedAt + ttl() <= now) live.delete(task.taskId);
    // Over the bound: the oldest finished ones go first.
    for (const task of live.values()) {
      if (live.size < maxLive) break;
      if (isTerminal(task.status)) live.delete(task.taskId);
    }
  };

  /** The task's run in the journal, if the runtime has one and the run is the owner's. */
  const journalRun = async (taskId: string, owner: TaskOwner): Promise<RunOfCall | undefined> => {
    if (rt.pausedRunTtlMs === undefined) return undefined;
    const run = await rt.runOfCall(callIdOf(taskId), runsScope(owner)).catch(() => undefined);
    return run !== undefined && run.agent === owner.agent && run.principal === owner.principal ? run : undefined;
  };

  const ask = async (task: LiveTask, ctx: TaskServerContext, paused: PausedRun) => {
    task.asked.add(pauseKey(paused));
    let questionId: JsonValue = null;
    try {
      return await askApproval(
        async (question) => {
          if (task.queue.length >= MAX_QUEUED_PER_TASK) throw new Error('the task queue is full');
          questionId = question.id;
          task.queue.push({ type: 'request', message: question, timestamp: Date.now() });
        },
        paused,
        {
          scope: null,
          meta: { [RELATED_TASK_META_KEY]: { taskId: task.taskId } },
          timeoutMs: ctx.elicitationTimeoutMs,
          signal: task.controller.signal,
        },
      );
    } finally {
      // Unanswered (timed out, cancelled): the question leaves the queue with it.
      const at = task.queue.findIndex((m) => m.type === 'request' && m.message.id === questionId);
      if (at >= 0) task.queue.splice(at, 1);
    }
  };

  /** While the run pauses and the client decides, resumes it; resolves with its final result, or undefined while it stays paused. */
  const followPauses = async (task: LiveTask, ctx: TaskServerContext, first: ToolResult) => {
    let current = first;
    for (let round = 0; round < MAX_ELICITATION_ROUNDS; round += 1) {
      const paused = pausedOf(current);
      if (paused === undefined) return current;
      task.runId = paused.runId;
      setStatus(task, 'input_required', pausedMessage(paused));
      if (!asksByForm(ctx.capabilities.get()) || task.asked.has(pauseKey(paused))) return undefined;
      const decisions = await ask(task, ctx, paused);
      if (decisions === undefined || task.status === 'cancelled') return undefined;
      setStatus(task, 'working');
      current = await rt.resume(paused.runId, decisions, runsScope(task.owner));
    }
    return undefined;
  };

  const settle = (task: LiveTask, ctx: TaskServerContext, result: ToolResult | undefined): void => {
    if (result === undefined) return;
    if (task.status === 'cancelled') {
      task.result ??= cancelledResult(task.runId);
      return;
    }
    task.result = ctx.toResult(result);
    setStatus(task, result.isError ? 'failed' : 'completed', result.isError ? result.error?.message : undefined);
  };

  /** Runs (or goes on with) the task in the background; a thrown error leaves a paused run to the journal. */
  const drive = (task: LiveTask, ctx: TaskServerContext, begin: () => Promise<ToolResult>): void => {
    task.busy = true;
    void (async () => {
      try {
        settle(task, ctx, await followPauses(task, ctx, await begin()));
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        if (task.runId === undefined) {
          task.result = { content: [{ type: 'text', text: why }], isError: true };
          setStatus(task, 'failed', why);
        } else task.statusMessage = why;
      } finally {
        task.busy = false;
      }
    })();
  };

  /** A task as the caller may see it: live here (brought up to date from the journal when idle), or from the journal. */
  const lookup = async (
    taskId: string,
    ctx: TaskServerContext,
  ): Promise<{ task: Task; result: CallToolResult | undefined; run?: RunOfCall } | undefined> => {
    if (!TASK_ID.test(taskId)) return undefined;
    const task = live.get(taskId);
    if (task !== undefined) {
      if (!sameOwner(task.owner, ctx.owner)) return undefined;
      if (!task.busy && !isTerminal(task.status) && task.runId !== undefined) {
        // Paused here and nobody asking: an operator may have decided it since.
        const run = await journalRun(taskId, ctx.owner);
        if (run !== undefined && run.status !== 'paused') {
          const seen = fromRun(taskId, run, ttl(), ctx.toResult);
          if (isTerminal(seen.task.status)) task.result = seen.result;
          setStatus(task, seen.task.status, seen.task.statusMessage);
        }
        return { task: view(task), result: task.result, ...(run === undefined ? {} : { run }) };
      }
      return { task: view(task), result: task.result };
    }
    const run = await journalRun(taskId, ctx.owner);
    return run === undefined ? undefined : { ...fromRun(taskId, run, ttl(), ctx.toResult), run };
  };

  /**
   * A client waiting in tasks/result on a paused task nobody here is asking about (the
   * server that paused it stopped): this process takes the question over, once per pause.
   */
  const adopt = async (taskId: string, ctx: TaskServerContext): Promise<void> => {
    const known = live.get(taskId);
    if (known?.busy === true || !asksByForm(ctx.capabilities.get())) return;
    const found = await lookup(taskId, ctx);
    const paused =
      found?.run?.status === 'paused' && found.run.result !== undefined ? pausedOf(found.run.result) : undefined;
    if (found === undefined || paused === undefined) return;
    const task = known ?? remember(taskId, ctx.owner, found.run!.startedAt);
    if (task.asked.has(pauseKey(paused)) || task.busy) return;
    task.runId = paused.runId;
    drive(task, ctx, async () => found.run!.result!);
  };

  const remember = (taskId: string, owner: TaskOwner, createdAt: number): LiveTask => {
    prune();
    if (live.size >= maxLive)
      throw new McpError(
        ErrorCode.InvalidRequest,
        `too many tasks in this process (${maxLive} unfinished); wait for some to finish or cancel them`,
      );
    const task: LiveTask = {
      taskId,
      owner,
      createdAt,
      updatedAt: Date.now(),
      status: 'working',
      statusMessage: undefined,
      result: undefined,
      runId: undefined,
      busy: false,
      controller: new AbortController(),
      queue: [],
      asked: new Set(),
    };
    live.set(taskId, task);
    return task;
  };

  const cancel = async (taskId: string, ctx: TaskServerContext): Promise<void> => {
    const found = await lookup(taskId, ctx);
    if (found === undefined) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    const task = live.get(taskId);
    const runId = task?.runId ?? found.run?.runId;
    // Running here (not paused): aborting its call ends the run, journaled as cancelled.
    const runningHere = task?.busy === true && task.status === 'working';
    if (!runningHere && runId !== undefined) {
      try {
        await rt.cancelRun(runId, runsScope(ctx.owner));
      } catch (error) {
        throw new McpError(
          ErrorCode.InvalidRequest,
          `cannot cancel task ${taskId}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    const cancelled = task ?? remember(taskId, ctx.owner, found.run?.startedAt ?? Date.now());
    cancelled.runId ??= runId;
    setStatus(cancelled, 'cancelled', 'cancelled by the client (tasks/cancel)');
    cancelled.result ??= cancelledResult(runId);
    cancelled.controller.abort(new Error('the task was cancelled (tasks/cancel)'));
  };

  const forServer = (ctx: TaskServerContext): { store: TaskStore; queue: TaskMessageQueue } => {
    const mine = (taskId: string): LiveTask | undefined => {
      const task = live.get(taskId);
      return task !== undefined && sameOwner(task.owner, ctx.owner) ? task : undefined;
    };
    const store: TaskStore = {
      createTask: async (_params: CreateTaskOptions) => {
        throw new McpError(ErrorCode.InvalidRequest, `tasks are created by calling ${RUN_CODE} with task augmentation`);
      },
      getTask: async (taskId) => (await lookup(taskId, ctx))?.task ?? null,
      storeTaskResult: async (taskId, status, result: Result) => {
        const task = mine(taskId);
        if (task === undefined) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
        task.result = result as CallToolResult;
        setStatus(task, status);
      },
      getTaskResult: async (taskId) => {
        const found = await lookup(taskId, ctx);
        if (found?.result === undefined || !isTerminal(found.task.status))
          throw new McpError(
            ErrorCode.InvalidParams,
            `Task ${taskId} has no result yet (status ${found?.task.status ?? 'unknown'})`,
          );
        return found.result;
      },
      updateTaskStatus: async (taskId, status, statusMessage) => {
        if (status === 'cancelled') return cancel(taskId, ctx);
        const task = mine(taskId);
        if (task !== undefined) setStatus(task, status, statusMessage);
      },
      listTasks: async (cursor) => listTasks(ctx, cursor),
    };
    const queue: TaskMessageQueue = {
      enqueue: async (taskId, message, _sessionId, maxSize) => {
        const task = mine(taskId);
        if (task === undefined) throw new Error(`Task not found: ${taskId}`);
        if (task.queue.length >= Math.min(maxSize ?? MAX_QUEUED_PER_TASK, MAX_QUEUED_PER_TASK))
          throw new Error(`the queue of task ${taskId} is full (${MAX_QUEUED_PER_TASK} messages)`);
        task.queue.push(message);
      },
      dequeue: async (taskId) => {
        const next = mine(taskId)?.queue.shift();
        if (next === undefined) await adopt(taskId, ctx);
        return next;
      },
      dequeueAll: async (taskId) => mine(taskId)?.queue.splice(0) ?? [],
    };
    return { store, queue };
  };

  /** The owner's tasks: those in memory and the journal's paused or interrupted task runs, oldest first. */
  const listTasks = async (ctx: TaskServerContext, cursor: string | undefined) => {
    const offset = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw new McpError(
        ErrorCode.InvalidParams,
        `invalid cursor ${JSON.stringify(cursor)}: pass the nextCursor of a previous page`,
      );
    const tasks = new Map<string, Task>();
    for (const task of live.values()) if (sameOwner(task.owner, ctx.owner)) tasks.set(task.taskId, view(task));
    if (rt.pausedRunTtlMs !== undefined) {
      const runs = await rt.runs(runsScope(ctx.owner)).catch(() => []);
      for (const run of runs) {
        const taskId = run.callId.slice(TASK_CALL_ID_PREFIX.length);
        if (!run.callId.startsWith(TASK_CALL_ID_PREFIX) || tasks.has(taskId) || !TASK_ID.test(taskId)) continue;
        if (run.agent !== ctx.owner.agent || run.principal !== ctx.owner.principal) continue;
        const found = await lookup(taskId, ctx);
        if (found !== undefined) tasks.set(taskId, found.task);
      }
    }
    const all = [...tasks.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const page = all.slice(offset, offset + TASKS_PAGE_SIZE);
    return {
      tasks: page,
      ...(offset + TASKS_PAGE_SIZE < all.length ? { nextCursor: String(offset + TASKS_PAGE_SIZE) } : {}),
    };
  };

  return {
    forServer,
    start(ctx, args) {
      const taskId = randomBytes(16).toString('hex');
      const task = remember(taskId, ctx.owner, Date.now());
      drive(task, ctx, () =>
        rt.execute({
          callId: callIdOf(taskId),
          name: RUN_CODE,
          arguments: args as Record<string, JsonValue>,
          signal: task.controller.signal,
          ...(ctx.owner.agent === undefined ? {} : { agent: ctx.owner.agent }),
          ...(ctx.owner.principal === undefined ? {} : { principal: ctx.owner.principal }),
        }),
      );
      return view(task);
    },
    get size() {
      return live.size;
    },
  };
}
