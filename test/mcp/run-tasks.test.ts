// run_code as an MCP task, with the official TypeScript client over Streamable HTTP
// (stateless: every request, and the answer to a question, is a POST of its own): the
// task answers at once, its status follows the run (working, input_required while paused,
// then completed / failed / cancelled), the approval is asked through tasks/result,
// tasks/cancel cancels the run, tasks/list and tasks/get see only the caller's principal's
// tasks, and a paused task survives its server: another runtime on the same journal (a
// JSONL file, or PostgreSQL) answers it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  type CallToolResult,
  ElicitRequestSchema,
  type ElicitRequest,
  RELATED_TASK_META_KEY,
} from '@modelcontextprotocol/sdk/types.js';
import { defineTool, type Journal, type ToolRuntime } from '../../src/index.ts';
import { createRunTasks, serveMcpHttp, type McpHttpServer, type RunTasks } from '../../src/mcp/index.ts';
import { gatedRuntime, readBodyLog } from '../durable-runs/fixtures/gated-tools.ts';
import { freshStore, openStore, startStoreServers, stopStoreServers } from '../durability/fixtures/stores.ts';

const TOKEN = 'tasks-test-token-0123456789';
const ONE_WRITE = 'const a = await tools.write({ v: 1 }); return a.wrote;';
let dir = '';
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-tasks-'));
  await startStoreServers();
}, 120_000);
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await stopStoreServers();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
/** Calls of `hold` that are holding now. */
let holding = 0;
/** A runtime with the gated tools (write pauses for approval) and `hold` (waits until its call is aborted). */
function runtime(journal: Journal | string, log: string): ToolRuntime {
  const rt = gatedRuntime(journal, log);
  rt.register(
    defineTool({
      name: 'hold',
      description: 'Holds until its call is aborted.',
      parameters: {},
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      isConcurrencySafe: () => true,
      execute: (_args, exec) =>
        new Promise<string>((resolve) => {
          holding += 1;
          exec.signal.addEventListener(
            'abort',
            () => {
              holding -= 1;
              resolve('aborted');
            },
            { once: true },
          );
        }),
    }),
  );
  return rt;
}

async function serve(
  rt: ToolRuntime,
  options: { principal?: string; tasks?: RunTasks; elicitationTimeoutMs?: number } = {},
): Promise<McpHttpServer> {
  const server = await serveMcpHttp(rt, { token: TOKEN, ...options });
  cleanups.push(() => server.close());
  return server;
}

async function start(): Promise<{ rt: ToolRuntime; server: McpHttpServer; log: string; journal: string }> {
  n += 1;
  const log = join(dir, `body-${n}.log`);
  const journal = join(dir, `journal-${n}.jsonl`);
  const rt = runtime(journal, log);
  cleanups.push(() => rt.close());
  return { rt, server: await serve(rt), log, journal };
}

type Answer = (request: ElicitRequest['params']) => Promise<{ action: 'accept' | 'decline'; content?: object }>;

async function connect(
  server: McpHttpServer,
  answer?: Answer,
): Promise<{ client: Client; asked: ElicitRequest['params'][] }> {
  const asked: ElicitRequest['params'][] = [];
  const client = new Client(
    { name: 'tasks', version: '1' },
    answer === undefined ? {} : { capabilities: { elicitation: { form: {} } } },
  );
  if (answer !== undefined)
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return answer(request.params) as never;
    });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  cleanups.push(() => client.close());
  return { client, asked };
}

const approveAll: Answer = async (params) => ({
  action: 'accept',
  content: Object.fromEntries(
    Object.keys((params as { requestedSchema: { properties: object } }).requestedSchema.properties).map((f) => [
      f,
      'approve',
    ]),
  ),
});

/** Calls run_code as a task through the SDK's stream: the task id, every status seen, and the outcome. */
async function callAsTask(
  client: Client,
  code: string,
): Promise<{ taskId: string; statuses: string[]; result?: CallToolResult; error?: Error }> {
  let taskId = '';
  const statuses: string[] = [];
  let result: CallToolResult | undefined;
  let error: Error | undefined;
  const stream = client.experimental.tasks.callToolStream(
    { name: 'run_code', arguments: { description: 'writes', code } },
    CallToolResultSchema,
    { task: { ttl: 60_000 }, timeout: 60_000 },
  );
  for await (const message of stream) {
    if (message.type === 'taskCreated') {
      taskId = message.task.taskId;
      statuses.push(message.task.status);
    } else if (message.type === 'taskStatus') statuses.push(message.task.status);
    else if (message.type === 'result') result = message.result as CallToolResult;
    else error = message.error;
  }
  return { taskId, statuses, ...(result === undefined ? {} : { result }), ...(error === undefined ? {} : { error }) };
}

/** Creates the task and returns its id at once (the run goes on). */
async function createTask(client: Client, code: string): Promise<string> {
  const stream = client.experimental.tasks.callToolStream(
    { name: 'run_code', arguments: { description: 'writes', code } },
    CallToolResultSchema,
    { task: {}, timeout: 60_000 },
  );
  const first = await stream.next();
  const message = first.value as { type: string; task?: { taskId: string } };
  expect(message.type).toBe('taskCreated');
  void stream.return(undefined);
  return message.task!.taskId;
}

/** Polls tasks/get until `wanted` (a bounded deadline), then returns the task. */
async function untilStatus(client: Client, taskId: string, wanted: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (task.status === wanted) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} is still ${task.status}, not ${wanted}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('run_code as an MCP task, official TS client over Streamable HTTP', () => {
  it('lists run_code as task-capable and declares the tasks capability', async () => {
    const { server } = await start();
    const { client } = await connect(server);
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'run_code')?.execution).toEqual({ taskSupport: 'optional' });
  });

  it('a program that needs no approval: the task completes and tasks/result gives the run_code result', async () => {
    const { server } = await start();
    const { client } = await connect(server);
    const { taskId, statuses, result } = await callAsTask(client, 'return (await tools.read({ n: 4 })) + 2;');
    expect(taskId).toMatch(/^[0-9a-f]{32}$/u);
    expect(statuses[0]).toBe('working');
    expect(statuses.at(-1)).toBe('completed');
    expect(result?.isError).toBe(false);
    expect(result?.structuredContent).toEqual({ logs: [], result: 42 });
    expect(result?._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId });
  });

  it('a paused run: input_required, the approval asked through tasks/result, then the final result', async () => {
    const { server, log, rt } = await start();
    const { client, asked } = await connect(server, approveAll);
    const { taskId, statuses, result } = await callAsTask(client, ONE_WRITE);
    expect(statuses).toContain('input_required');
    expect(asked).toHaveLength(1);
    const question = asked[0] as { message: string; requestedSchema: { properties: object }; _meta?: object };
    expect(question.message).toMatch(/1 tool call awaits your approval/u);
    expect(Object.keys(question.requestedSchema.properties)).toEqual(['call_1']);
    expect(question._meta).toEqual({ [RELATED_TASK_META_KEY]: { taskId } });
    expect(result?.structuredContent).toEqual({ logs: [], result: 1 });
    expect(readBodyLog(log).map((b) => b.args)).toEqual([{ v: 1 }]);
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('completed');
    expect((await rt.runOfCall(`mcp-task-${taskId}`))?.status).toBe('completed');
  });

  it('a denied call fails inside the program; a failing program makes a failed task whose result says why', async () => {
    const { server } = await start();
    const { client } = await connect(server, async () => ({ action: 'accept', content: { call_1: 'deny' } }));
    const { result } = await callAsTask(client, 'try { await tools.write({ v: 1 }); } catch (e) { return e.code; }');
    expect(result?.structuredContent).toEqual({ logs: [], result: 'DENIED' });
    const failing = await callAsTask(client, 'throw new Error("boom");');
    expect(failing.statuses.at(-1)).toBe('failed');
    const stored = await failing.error;
    expect(stored).toBeDefined();
    const payload = await client.experimental.tasks.getTaskResult(failing.taskId, CallToolResultSchema);
    expect(payload.isError).toBe(true);
    expect(JSON.stringify(payload.content)).toContain('boom');
  });

  it('tasks/cancel of a paused task: cancelled, the journal says so, the gated call never ran', async () => {
    const { server, log, rt } = await start();
    const { client } = await connect(server);
    const taskId = await createTask(client, ONE_WRITE);
    const paused = await untilStatus(client, taskId, 'input_required');
    expect(paused.statusMessage).toMatch(/is paused: 1 tool call awaits approval/u);
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled.status).toBe('cancelled');
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
    expect((await rt.runOfCall(`mcp-task-${taskId}`))?.status).toBe('cancelled');
    await expect(rt.resume((await rt.runOfCall(`mcp-task-${taskId}`))!.runId, {})).rejects.toMatchObject({
      code: 'RUN_FINISHED',
    });
    await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/terminal status: cancelled/u);
    expect(readBodyLog(log)).toEqual([]);
  });

  it('tasks/cancel of a running task aborts its run, journaled as cancelled', async () => {
    const { server, rt } = await start();
    const { client } = await connect(server);
    const taskId = await createTask(client, 'await tools.hold({}); await tools.read({ n: 1 }); return "went on";');
    const deadline = Date.now() + 60_000;
    while (holding === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(holding).toBe(1);
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('working');
    expect((await client.experimental.tasks.cancelTask(taskId)).status).toBe('cancelled');
    // The run ends (its slot and claim given back) once its body saw the abort.
    const until = Date.now() + 60_000;
    while ((await rt.runOfCall(`mcp-task-${taskId}`))?.status !== 'cancelled' && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await rt.runOfCall(`mcp-task-${taskId}`))?.status).toBe('cancelled');
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
    expect(holding).toBe(0);
  });

  it("tasks/list and tasks/get see only the caller's principal's tasks", async () => {
    n += 1;
    const rt = runtime(join(dir, `journal-${n}.jsonl`), join(dir, `body-${n}.log`));
    cleanups.push(() => rt.close());
    const tasks = createRunTasks(rt);
    const alice = await connect(await serve(rt, { principal: 'alice', tasks }));
    const bob = await connect(await serve(rt, { principal: 'bob', tasks }));
    const aliceTask = await createTask(alice.client, ONE_WRITE);
    const bobTask = await createTask(bob.client, ONE_WRITE);
    await untilStatus(alice.client, aliceTask, 'input_required');
    await untilStatus(bob.client, bobTask, 'input_required');
    expect((await alice.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([aliceTask]);
    expect((await bob.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([bobTask]);
    await expect(bob.client.experimental.tasks.getTask(aliceTask)).rejects.toThrow(/Task not found/u);
    await expect(bob.client.experimental.tasks.cancelTask(aliceTask)).rejects.toThrow(/Task not found/u);
    await expect(
      bob.client.experimental.tasks.getTaskResult(aliceTask, CallToolResultSchema, { timeout: 10_000 }),
    ).rejects.toThrow(/Task not found/u);
    // The runs are the principals' own in the journal too.
    expect((await rt.runs({ principal: 'alice' })).map((r) => r.callId)).toEqual([`mcp-task-${aliceTask}`]);
    expect((await alice.client.experimental.tasks.getTask(aliceTask)).status).toBe('input_required');
  });

  it('only run_code runs as a task', async () => {
    const { server } = await start();
    const { client } = await connect(server);
    await expect(
      client.request(
        { method: 'tools/call', params: { name: 'read', arguments: { n: 1 }, task: {} } },
        CallToolResultSchema,
      ),
    ).rejects.toThrow(/only run_code runs as a task/u);
  });

  for (const kind of ['file', 'postgres'] as const)
    it(`a paused task survives its server: another runtime on the same ${kind} journal asks and finishes it`, async () => {
      n += 1;
      const log = join(dir, `body-${n}.log`);
      const location = await freshStore(dir, kind, `tasks_restart_${n}`);
      // Server A: the run pauses; its client has no elicitation, so nobody is asked there.
      const storeA = openStore(kind, location);
      const rtA = runtime(storeA.journal, log);
      const serverA = await serveMcpHttp(rtA, { token: TOKEN });
      const clientA = new Client({ name: 'a', version: '1' });
      await clientA.connect(
        new StreamableHTTPClientTransport(new URL(serverA.url), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      const taskId = await createTask(clientA, ONE_WRITE);
      await untilStatus(clientA, taskId, 'input_required');
      await clientA.close();
      await serverA.close();
      await rtA.close();
      await storeA.close();
      // Server B, a fresh runtime on the same journal: the task is there, and answered there.
      const storeB = openStore(kind, location);
      cleanups.push(() => storeB.close());
      const rtB = runtime(storeB.journal, log);
      cleanups.push(() => rtB.close());
      const { client, asked } = await connect(await serve(rtB), approveAll);
      const task = await client.experimental.tasks.getTask(taskId);
      expect(task.status).toBe('input_required');
      expect((await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([taskId]);
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { timeout: 60_000 });
      expect(asked).toHaveLength(1);
      expect(result.structuredContent).toEqual({ logs: [], result: 1 });
      expect((await client.experimental.tasks.getTask(taskId)).status).toBe('completed');
      expect(readBodyLog(log).map((b) => b.args)).toEqual([{ v: 1 }]);
      // A server that never held the task answers it, finished, from the journal alone.
      const other = await connect(await serve(rtB));
      expect((await other.client.experimental.tasks.getTask(taskId)).status).toBe('completed');
      const again = await other.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(again.structuredContent).toEqual({ logs: [], result: 1 });
    }, 120_000);
});
