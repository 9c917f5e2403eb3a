// MCP tool import against the published @modelcontextprotocol/server-sequential-thinking,
// over its real stdio transport: one stateful tool with input and output schemas.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/types.ts';
import { createToolRuntime, type ToolRuntime } from '../../src/index.ts';
import { importMcpTools, type McpToolImport } from '../../src/mcp/index.ts';
import { SEQUENTIAL_THINKING } from './helpers.ts';

describe(`importMcpTools with @modelcontextprotocol/server-sequential-thinking ${SEQUENTIAL_THINKING.version}`, () => {
  let sandbox: Sandbox;
  let rt: ToolRuntime;
  let imported: McpToolImport;

  beforeAll(async () => {
    sandbox = createSandbox();
    rt = createToolRuntime({ mode: 'both', sandbox });
    imported = await importMcpTools(rt, {
      servers: [
        { command: process.execPath, args: [SEQUENTIAL_THINKING.entry], env: { DISABLE_THOUGHT_LOGGING: 'true' } },
      ],
      onWarning: () => {},
    });
  });
  afterAll(async () => {
    await imported?.close();
    await rt?.close();
    await sandbox?.close();
  });

  it('registers sequentialthinking with its input and output schemas (without $schema)', async () => {
    expect(imported.tools).toEqual(['sequentialthinking']);
    expect(imported.skipped).toEqual([]);
    expect(imported.connections[0]!.serverName).toBe('sequential-thinking-server');
    const { tools } = await imported.connections[0]!.client.listTools();
    const raw = tools.find((t) => t.name === 'sequentialthinking')!;
    const { $schema: _in, ...input } = raw.inputSchema as Record<string, unknown>;
    const { $schema: _out, ...output } = raw.outputSchema as Record<string, unknown>;
    const tool = rt.tool('sequentialthinking')!;
    expect(tool.parameters).toEqual(input);
    expect(tool.outputSchema).toEqual(output);
    expect(tool.description).toBe(raw.description);
    expect(input).toMatchObject({ required: ['thought', 'nextThoughtNeeded', 'thoughtNumber', 'totalThoughts'] });
  });

  it('gives the SDK typed arguments (descriptions, bounds) and a typed return', () => {
    const sdk = rt.sdk();
    expect(sdk).toContain('/** Your current thinking step */ thought: string;');
    expect(sdk).toMatch(/thoughtNumber: number; \/\*\* Estimated total thoughts needed[^*]*@minimum 1/u);
    expect(sdk).toContain(
      '{ thoughtNumber: number; totalThoughts: number; nextThoughtNeeded: boolean; branches: string[]; thoughtHistoryLength: number }>;',
    );
  });

  it('annotations.readOnlyHint === true makes it concurrency-safe for valid arguments', () => {
    const args = { thought: 'a', nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 2 };
    expect(rt.tool('sequentialthinking')!.isConcurrencySafe(args)).toBe(true);
    expect(rt.tool('sequentialthinking')!.isConcurrencySafe({})).toBe(false); // invalid args: exclusive
  });

  it('a native call and a run_code program reach the same server process (its history grows)', async () => {
    const native = await rt.execute({
      callId: 's1',
      name: 'sequentialthinking',
      arguments: { thought: 'List the parts', nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 3 },
    });
    expect(native.isError).toBe(false);
    expect(native.value).toEqual({
      thoughtNumber: 1,
      totalThoughts: 3,
      nextThoughtNeeded: true,
      branches: [],
      thoughtHistoryLength: expect.any(Number),
    });
    const before = (native.value as { thoughtHistoryLength: number }).thoughtHistoryLength;

    const program = await rt.execute({
      callId: 'rc1',
      name: 'run_code',
      arguments: {
        description: 'Two more thoughts, one on a branch',
        code: `
          const second = await tools.sequentialthinking({ thought: 'Check each part', nextThoughtNeeded: true, thoughtNumber: 2, totalThoughts: 3 });
          const branch = await tools.sequentialthinking({
            thought: 'Try the other order', nextThoughtNeeded: false, thoughtNumber: 3, totalThoughts: 3,
            branchFromThought: 1, branchId: 'alt',
          });
          return { lengths: [second.thoughtHistoryLength, branch.thoughtHistoryLength], branches: branch.branches, done: !branch.nextThoughtNeeded };`,
      },
    });
    expect(program.error).toBeUndefined();
    expect(program.value).toEqual({
      logs: [],
      result: { lengths: [before + 1, before + 2], branches: ['alt'], done: true },
    });
  });

  it('arguments outside the schema (thoughtNumber < 1) are refused before the server is called', async () => {
    const result = await rt.execute({
      callId: 's2',
      name: 'sequentialthinking',
      arguments: { thought: 'x', nextThoughtNeeded: true, thoughtNumber: 0, totalThoughts: 1 },
    });
    expect(result.error?.code).toBe('INVALID_ARGS');
  });
});
