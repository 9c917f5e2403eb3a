// MCP import is bounded: a hostile server (official SDK, stdio) whose listing never
// ends, lists too much or never answers fails the import with MCP_IMPORT_LIMIT naming
// the bound; the host keeps its heap and an ordinary server imports afterwards.
import { describe, expect, it } from '@jest/globals';
import { connectMcpServer } from '../../src/mcp/connect-mcp-server.ts';
import { DEFAULT_MCP_IMPORT_LIMITS } from '../../src/mcp/list-mcp-tools.ts';
import { expectFollowingRunFine, expectHeapKept, runHostCase, type BriefResult } from './helpers.ts';

interface Failure {
  readonly code: string;
  readonly limit: string;
  readonly message: string;
}

describe('importing tools from a hostile MCP server', () => {
  it('every way a listing can run away ends with a clear MCP_IMPORT_LIMIT error; then a fine server imports', async () => {
    const report = await runHostCase<Record<string, Failure | { tools: string[]; called: BriefResult }>>('mcp-import', 128);
    const seen = report.seen;
    const failure = (mode: string): Failure => seen[mode] as Failure;
    expect(failure('endless-cursor')).toMatchObject({ code: 'MCP_IMPORT_LIMIT', limit: 'maxPages' });
    expect(failure('endless-cursor').message).toMatch(/endless-cursor" was still returning a nextCursor after 100 pages of tools\/list \(limits\.maxPages\)/);
    expect(failure('repeat-cursor')).toMatchObject({ code: 'MCP_IMPORT_LIMIT', limit: 'maxPages' });
    expect(failure('repeat-cursor').message).toContain('returned the nextCursor "again" twice in tools/list');
    expect(failure('many-tools')).toMatchObject({ code: 'MCP_IMPORT_LIMIT', limit: 'maxTools' });
    expect(failure('many-tools').message).toContain('lists more than 1000 tools (limits.maxTools)');
    expect(failure('huge-tools')).toMatchObject({ code: 'MCP_IMPORT_LIMIT', limit: 'maxListBytes' });
    expect(failure('huge-tools').message).toContain('sent more than 16777216 bytes of tool definitions (limits.maxListBytes)');
    // One 12 MB message: over stdio (one line), and over Streamable HTTP as a JSON body and as one server-sent event.
    for (const mode of ['huge-page', 'http-huge-json', 'http-huge-sse']) {
      expect(failure(mode)).toMatchObject({ code: 'MCP_IMPORT_LIMIT', limit: 'maxMessageBytes' });
      expect(failure(mode).message).toContain('sent one message larger than 10485760 bytes (limits.maxMessageBytes); the import was stopped');
    }
    for (const mode of ['silent-list', 'silent-init']) {
      expect(failure(mode)).toMatchObject({ code: 'MCP_IMPORT_LIMIT', limit: 'timeoutMs' });
      expect(failure(mode).message).toContain('did not finish its handshake and tool listing within 3000 ms (limits.timeoutMs)');
    }
    expect(seen['fine']).toMatchObject({ tools: ['lookup', 'search'], called: { isError: false } });
    expectHeapKept(report);
    expectFollowingRunFine(report);
  }, 150_000);

  it('states its defaults and checks the options before starting anything', async () => {
    expect(DEFAULT_MCP_IMPORT_LIMITS).toEqual({ maxPages: 100, maxTools: 1000, maxListBytes: 16 * 1_048_576, timeoutMs: 30_000, maxMessageBytes: 10 * 1_048_576 });
    await expect(connectMcpServer('node -e 0', { limits: { maxPages: 0 } })).rejects.toThrow('connectMcpServer(node -e 0): limits.maxPages must be a positive integer, got 0');
    await expect(connectMcpServer('node -e 0', { limits: { pages: 3 } as never })).rejects.toThrow('unknown MCP import limit "pages"; known: maxPages, maxTools, maxListBytes, timeoutMs, maxMessageBytes');
  });
});
