// run_code as an MCP task over stdio: `ptc serve` as a real child process (the gated tools,
// a JSONL journal, --approval pause), driven by the official TypeScript client's tasks API.
// The task pauses (input_required), the client answers the approval that tasks/result
// delivers, and gets the final result; a second task, never fetched, is cancelled while paused.
import { afterAll, describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, type CallToolResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { readBodyLog } from '../durable-runs/fixtures/gated-tools.ts';
import { PTC_BIN, scratchDir } from './helpers.ts';

const TOOLS = fileURLToPath(new URL('../durable-runs/fixtures/gated-tools-module.ts', import.meta.url));

describe('run_code as a task over stdio (ptc serve child process)', () => {
  const scratch = scratchDir();
  const log = join(scratch.dir, 'body.log');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      '--no-node-snapshot',
      PTC_BIN,
      'serve',
      '--tools',
      TOOLS,
      '--mode',
      'ptc',
      '--journal',
      join(scratch.dir, 'journal.jsonl'),
      '--approval',
      'pause',
    ],
    env: { ...(process.env as Record<string, string>), NODE_OPTIONS: '', PTC_TEST_BODY_LOG: log },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'tasks-stdio', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { call_1: 'approve' } }));

  afterAll(async () => {
    await client.close();
    scratch.remove();
  });

  it('pauses, is approved through tasks/result, and completes', async () => {
    await client.connect(transport);
    const statuses: string[] = [];
    let result: CallToolResult | undefined;
    for await (const message of client.experimental.tasks.callToolStream(
      {
        name: 'run_code',
        arguments: { description: 'one write', code: 'return (await tools.write({ v: 5 })).wrote;' },
      },
      CallToolResultSchema,
      { task: {}, timeout: 60_000 },
    )) {
      if (message.type === 'taskCreated' || message.type === 'taskStatus') statuses.push(message.task.status);
      else if (message.type === 'result') result = message.result as CallToolResult;
      else throw new Error(`task error: ${message.error.message}; stderr: ${stderr}`);
    }
    expect(statuses).toContain('input_required');
    expect(result?.structuredContent).toEqual({ logs: [], result: 5 });
    expect(readBodyLog(log).map((b) => b.args)).toEqual([{ v: 5 }]);
  }, 120_000);

  it('a paused task stays input_required until decided (its question waits for tasks/result); tasks/cancel cancels it', async () => {
    const stream = client.experimental.tasks.callToolStream(
      {
        name: 'run_code',
        arguments: { description: 'one write', code: 'return (await tools.write({ v: 6 })).wrote;' },
      },
      CallToolResultSchema,
      { task: {}, timeout: 60_000 },
    );
    const created = (await stream.next()).value as { type: string; task: { taskId: string } };
    void stream.return(undefined);
    const { taskId } = created.task;
    const deadline = Date.now() + 60_000;
    let status = '';
    while (status !== 'input_required' && Date.now() < deadline) {
      status = (await client.experimental.tasks.getTask(taskId)).status;
      if (status !== 'input_required') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe('input_required');
    expect((await client.experimental.tasks.listTasks()).tasks.map((t) => [t.taskId, t.status])).toContainEqual([
      taskId,
      'input_required',
    ]);
    expect((await client.experimental.tasks.cancelTask(taskId)).status).toBe('cancelled');
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
    expect(readBodyLog(log).map((b) => b.args)).toEqual([{ v: 5 }]);
  }, 120_000);
});
