// Capacity through every way a run arrives or is configured: 100 concurrent run_code
// runs that each await a tool (released only once all 100 are inside it) all get in
// together and all succeed, with default settings but a heap limit that leaves the
// memory budget room for 100 (each run reserves its heap limit plus its footprint). A run
// awaiting a tool holds nothing else scarce: no CPU lane, no pooled connection, no
// worker, no turn slot.
import { afterAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '../../sandbox/index.ts';
import { toAiSdkTools } from '../../src/adapters/ai-sdk.ts';
import {
  ask,
  createToolRuntime,
  defineTool,
  type ApprovalService,
  type PausedRun,
  type ToolResult,
  type ToolRuntime,
} from '../../src/index.ts';
import type { ToolRuntimeOptions } from '../../src/runtime/create-tool-runtime.ts';
import { importMcpTools, serveMcpHttp } from '../../src/mcp/index.ts';
import { commandLine, PTC_BIN } from '../mcp/helpers.ts';
import { allDone, allInside, type AllInside } from './fixtures/all-inside.ts';

const RUNS = 100;
// 100 runs reserve 100 × (16 + 4) MiB, within this budget whatever the machine.
const ROOM = { limits: { memoryMb: 16 }, admission: { memoryBudgetBytes: 2_560 * 1_048_576 } } as const;
const PROGRAM = 'return await tools.wait_all({ of: 100 })';
const GATE_TOOLS = fileURLToPath(new URL('./fixtures/gate-tools.ts', import.meta.url));
const sandbox = createSandbox();
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await sandbox.close();
});

function gateTool(gate: AllInside) {
  return defineTool({
    name: 'wait_all',
    description: 'Answers once `of` calls are inside together.',
    parameters: { of: { type: 'number', required: true } },
    isConcurrencySafe: () => true,
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
    execute: () => gate.enter(),
  });
}

function runtime(options: ToolRuntimeOptions = {}): { rt: ToolRuntime; gate: AllInside } {
  const gate = allInside(RUNS);
  const rt = createToolRuntime({ mode: 'ptc', sandbox, ...ROOM, ...options });
  closers.push(() => rt.close());
  rt.register(gateTool(gate));
  return { rt, gate };
}

/** What a run answered: its result, or its error message. */
function answer(result: ToolResult): string {
  if (result.isError) return result.error?.message ?? 'error';
  return String((result.value as { result?: unknown }).result);
}

function runAll(rt: ToolRuntime, extra: object = {}, code = PROGRAM): Promise<string[]> {
  return Promise.all(
    Array.from({ length: RUNS }, (_, i) =>
      rt
        .execute({
          callId: `run-${i}`,
          name: 'run_code',
          arguments: { description: 'Wait with the others', code },
          ...extra,
        })
        .then(answer),
    ),
  );
}

const mcpText = (result: CallToolResult): string =>
  result.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');

describe('100 concurrent runs awaiting a tool, default settings (a 16 MiB heap limit)', () => {
  // Checks queue for the checker's workers (CPU work) before their runs start; 'warn'
  // takes the same path as 'error'.
  it("with typecheck: 'error'", async () => {
    const { rt } = runtime({ typecheck: 'error' });
    expect(await runAll(rt)).toEqual(allDone(RUNS));
  }, 120_000);

  for (const file of ['runs.jsonl', 'runs.db']) {
    it(`with a journal (${file})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ptc-capacity-'));
      closers.push(async () => rmSync(dir, { recursive: true, force: true }));
      const { rt } = runtime({ journal: join(dir, file) });
      expect(await runAll(rt)).toEqual(allDone(RUNS));
    }, 120_000);
  }

  it('with an approval asked for every call (the approvals are answered once all 100 are asked)', async () => {
    const asked = allInside(RUNS);
    const approval: ApprovalService = {
      request: async () => ((await asked.enter()) === 'done' ? 'allowed-once' : 'rejected'),
    };
    const { rt } = runtime({ approval });
    rt.on('tools/pre-execute', (exec, next) => (exec.name === 'wait_all' ? ask({ title: 'Wait?' }) : next()));
    expect(await runAll(rt)).toEqual(allDone(RUNS));
  }, 120_000);

  it('through a composite tool (its body calls the waiting tool with exec.callTool)', async () => {
    const { rt } = runtime();
    rt.register(
      defineTool({
        name: 'relay',
        description: 'Calls wait_all.',
        parameters: {},
        isConcurrencySafe: () => true,
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        execute: async (_args, exec) => String((await exec.callTool('wait_all', { of: RUNS })).value),
      }),
    );
    expect(await runAll(rt, {}, 'return await tools.relay({})')).toEqual(allDone(RUNS));
  }, 120_000);

  it('each holding its own resource key (in-process locks)', async () => {
    const gate = allInside(RUNS);
    const { rt } = runtime();
    rt.register(
      defineTool({
        name: 'write_account',
        description: 'Waits, holding the account.',
        parameters: { id: { type: 'string', required: true } },
        resourceKey: ({ id }) => `account:${id}`,
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        execute: () => gate.enter(),
      }),
    );
    const runs = Array.from({ length: RUNS }, (_, i) =>
      rt
        .execute({
          callId: `key-${i}`,
          name: 'run_code',
          arguments: { description: 'Hold a key', code: `return await tools.write_account({ id: 'a${i}' })` },
        })
        .then(answer),
    );
    expect(await Promise.all(runs)).toEqual(allDone(RUNS));
  }, 120_000);

  it('calling a tool imported from an MCP server over Streamable HTTP', async () => {
    const TOKEN = 'capacity-upstream-token-0123456789';
    const upstream = runtime({ mode: 'native', sandbox: false });
    const server = await serveMcpHttp(upstream.rt, { token: TOKEN });
    closers.push(() => server.close());
    const rt = createToolRuntime({ mode: 'ptc', sandbox, ...ROOM });
    closers.push(() => rt.close());
    const imported = await importMcpTools(rt, {
      servers: [{ url: server.url, headers: { Authorization: `Bearer ${TOKEN}` } }],
      onWarning: () => {},
    });
    closers.push(() => imported.close());
    expect(await runAll(rt)).toEqual(allDone(RUNS));
  }, 120_000);

  it('calling a tool imported from an MCP server over stdio (`ptc serve`)', async () => {
    const rt = createToolRuntime({ mode: 'ptc', sandbox, ...ROOM });
    closers.push(() => rt.close());
    const imported = await importMcpTools(rt, {
      servers: [commandLine(PTC_BIN, 'serve', '--mode', 'native', '--tools', GATE_TOOLS)],
      onWarning: () => {},
    });
    closers.push(() => imported.close());
    expect(await runAll(rt)).toEqual(allDone(RUNS));
  }, 120_000);

  // The JSONL journal takes the same path (it passed too, in about 12 s on a loaded machine).
  for (const file of ['paused.db']) {
    it(`100 runs paused for approval, then resumed together (${file})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ptc-capacity-'));
      closers.push(async () => rmSync(dir, { recursive: true, force: true }));
      const { rt } = runtime({ journal: join(dir, file), approval: { request: async () => 'pause' } });
      rt.on('tools/pre-execute', (exec, next) => (exec.name === 'wait_all' ? ask({ title: 'Wait?' }) : next()));
      const first = await Promise.all(
        Array.from({ length: RUNS }, (_, i) =>
          rt.execute({
            callId: `paused-${i}`,
            name: 'run_code',
            arguments: { description: 'Wait with the others', code: PROGRAM },
          }),
        ),
      );
      const paused = first.map((r) => (r.value as { paused?: PausedRun } | undefined)?.paused);
      expect(paused.filter((p) => p === undefined).length).toBe(0);
      const resumed = paused.map((p) =>
        rt.resume(p!.runId, Object.fromEntries(p!.pending.map((c) => [c.callId, 'approve' as const]))).then(answer),
      );
      expect(await Promise.all(resumed)).toEqual(allDone(RUNS));
    }, 120_000);
  }

  it('as 100 concurrent one-call turns (rt.executeTurn, as the OpenAI and Anthropic loops call it)', async () => {
    const { rt } = runtime();
    const turns = Array.from({ length: RUNS }, (_, i) =>
      rt
        .executeTurn([{ callId: `turn-${i}`, name: 'run_code', arguments: { description: 'Wait', code: PROGRAM } }])
        .then(({ results }) => answer(results[0]!)),
    );
    expect(await Promise.all(turns)).toEqual(allDone(RUNS));
  }, 120_000);

  it('as 100 AI SDK conversations (generateText) sharing one toAiSdkTools set', async () => {
    const { rt } = runtime();
    const tools = toAiSdkTools(rt);
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    const conversation = async (i: number): Promise<string> => {
      const model = new MockLanguageModelV4({
        doGenerate: [
          {
            content: [
              {
                type: 'tool-call',
                toolCallId: `conv-${i}`,
                toolName: 'run_code',
                input: JSON.stringify({ description: 'Wait', code: PROGRAM }),
              },
            ],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          },
          {
            content: [{ type: 'text', text: 'ok' }],
            finishReason: { unified: 'stop', raw: undefined },
            usage,
            warnings: [],
          },
        ],
      });
      const result = await generateText({ model, tools, prompt: 'Wait', stopWhen: isStepCount(2) });
      const output = result.steps[0]?.toolResults[0]?.output as ToolResult | undefined;
      return output === undefined ? 'no tool result' : answer(output);
    };
    expect(await Promise.all(Array.from({ length: RUNS }, (_, i) => conversation(i)))).toEqual(allDone(RUNS));
  }, 120_000);

  it('over MCP Streamable HTTP: 100 MCP SDK clients, one run_code call each', async () => {
    const TOKEN = 'capacity-token-0123456789abcdef';
    const { rt } = runtime();
    const server = await serveMcpHttp(rt, { token: TOKEN });
    closers.push(() => server.close());
    const call = async (): Promise<string> => {
      const client = new Client({ name: 'capacity', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      try {
        const result = (await client.callTool(
          { name: 'run_code', arguments: { description: 'Wait', code: PROGRAM } },
          undefined,
          { timeout: 110_000 },
        )) as CallToolResult;
        return result.isError === true
          ? mcpText(result)
          : ((result.structuredContent?.['result'] as string) ?? mcpText(result));
      } finally {
        await client.close();
      }
    };
    expect(await Promise.all(Array.from({ length: RUNS }, () => call()))).toEqual(allDone(RUNS));
  }, 120_000);

  it('over MCP stdio (`ptc serve`): one client, 100 concurrent run_code calls', async () => {
    const client = new Client({ name: 'capacity', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--no-node-snapshot', PTC_BIN, 'serve', '--mode', 'ptc', '--tools', GATE_TOOLS, '--memory-mb', '16'],
        stderr: 'pipe',
      }),
    );
    closers.push(() => client.close());
    const call = async (): Promise<string> => {
      const result = (await client.callTool(
        { name: 'run_code', arguments: { description: 'Wait', code: PROGRAM } },
        undefined,
        { timeout: 110_000 },
      )) as CallToolResult;
      return result.isError === true
        ? mcpText(result)
        : ((result.structuredContent?.['result'] as string) ?? mcpText(result));
    };
    expect(await Promise.all(Array.from({ length: RUNS }, () => call()))).toEqual(allDone(RUNS));
  }, 120_000);
});
