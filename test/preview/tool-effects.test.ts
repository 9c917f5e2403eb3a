// Effects on tool definitions: a tool is a write unless it says it reads; preview,
// revert and pivot belong to writes; MCP tools are reads only when the import trusts the
// server's readOnlyHint, against the real filesystem server.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createToolRuntime, defineTool } from '../../src/index.ts';
import { connectMcpServer } from '../../src/mcp/index.ts';
import { commandLine, FS, scratchDir } from '../mcp/helpers.ts';

const base = {
  name: 'refund',
  description: 'Refund an order',
  parameters: { order: { type: 'number', required: true } },
  output: { schema: { type: 'json' }, render: () => [] },
  execute: () => ({ ok: true }),
} as const;

describe('defineTool effect', () => {
  it("defaults to 'write' and keeps preview, revert and pivot", async () => {
    expect(defineTool(base).effect).toBe('write');
    expect(defineTool({ ...base, effect: 'read' }).effect).toBe('read');
    const reverted: unknown[] = [];
    const tool = defineTool({
      ...base,
      preview: (args) => ({ wouldRefund: args.order }),
      revert: (args, result) => {
        reverted.push([args, result]);
      },
      pivot: true,
    });
    const exec = {
      planId: 'p',
      seq: 1,
      agent: undefined,
      idempotencyKey: 'run:p:1',
      signal: AbortSignal.timeout(1000),
    };
    expect(await tool.preview?.({ order: 7 }, exec)).toStrictEqual({ wouldRefund: 7 });
    await tool.revert?.({ order: 7 }, { ok: true }, exec);
    expect(reverted).toStrictEqual([[{ order: 7 }, { ok: true }]]);
    expect(tool.pivot).toBe(true);
  });

  it('refuses an unknown effect and write-only fields on a read, naming the field', () => {
    expect(() => defineTool({ ...base, effect: 'delete' as 'read' })).toThrow(/effect must be 'read' or 'write'/);
    expect(() => defineTool({ ...base, effect: 'read', revert: () => {} })).toThrow(/revert belongs to writes only/);
    expect(() => defineTool({ ...base, effect: 'read', pivot: true })).toThrow(/pivot belongs to writes only/);
    expect(() => defineTool({ ...base, preview: 'x' as unknown as () => never })).toThrow(/preview must be a function/);
  });
});

describe('MCP import effects (server-filesystem)', () => {
  const scratch = scratchDir();
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
    scratch.remove();
  });

  it('readOnlyHint makes a read only with trustAnnotations: true', async () => {
    const plain = await connectMcpServer(commandLine(FS.entry, scratch.dir), { onWarning: () => {} });
    closers.push(() => plain.close());
    const trusted = await connectMcpServer(commandLine(FS.entry, scratch.dir), {
      onWarning: () => {},
      trustAnnotations: true,
    });
    closers.push(() => trusted.close());
    const effect = (tools: typeof plain.tools, name: string) => tools.find((t) => t.name === name)?.effect;
    expect(effect(plain.tools, 'read_text_file')).toBe('write');
    expect(effect(trusted.tools, 'read_text_file')).toBe('read');
    expect(effect(trusted.tools, 'write_file')).toBe('write');
    // The runtime sees the same tool it registered.
    const rt = createToolRuntime();
    closers.push(() => rt.close());
    rt.register(trusted.tools.find((t) => t.name === 'list_allowed_directories')!);
    expect(rt.tool('list_allowed_directories')?.effect).toBe('read');
  }, 60_000);
});
