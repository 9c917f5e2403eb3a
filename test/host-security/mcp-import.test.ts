// MCP import is bounded: a hostile server (official SDK, stdio) whose listing never
// ends, lists too much or never answers fails the import with MCP_IMPORT_LIMIT naming
// the bound; the host keeps its heap and an ordinary server imports afterwards.
import { describe, expect, it } from '@jest/globals';
import { boundedFetch, McpMessageTooLargeError } from '../../src/mcp/bounded-fetch.ts';
import { connectMcpServer } from '../../src/mcp/connect-mcp-server.ts';
import { DEFAULT_MCP_IMPORT_LIMITS } from '../../src/mcp/list-mcp-tools.ts';
import { MAX_DESCRIPTION_CHARS } from '../../sdk-gen/cap-description.ts';
import { expectFollowingRunFine, expectHeapKept, runHostCase, type BriefResult } from './helpers.ts';

interface Failure {
  readonly code: string;
  readonly limit: string;
  readonly message: string;
}

describe('importing tools from a hostile MCP server', () => {
  it('every way a listing can run away ends with a clear MCP_IMPORT_LIMIT error; then a fine server imports', async () => {
    const report = await runHostCase<Record<string, Failure | { tools: string[]; called: BriefResult }>>(
      'mcp-import',
      128,
    );
    const seen = report.seen;
    const failure = (mode: string): Failure => seen[mode] as Failure;
    expect(failure('endless-cursor')).toMatchObject({ code: 'MCP_IMPORT_LIMIT', limit: 'maxPages' });
    expect(failure('endless-cursor').message).toMatch(
      /endless-cursor" was still returning a nextCursor after 100 pages of tools\/list \(limits\.maxPages\)/,
    );
    expect(failure('repeat-cursor')).toMatchObject({ code: 'MCP_IMPORT_LIMIT', limit: 'maxPages' });
    expect(failure('repeat-cursor').message).toContain('returned the nextCursor "again" twice in tools/list');
    expect(failure('many-tools')).toMatchObject({ code: 'MCP_IMPORT_LIMIT', limit: 'maxTools' });
    expect(failure('many-tools').message).toContain('lists more than 1000 tools (limits.maxTools)');
    expect(failure('huge-tools')).toMatchObject({ code: 'MCP_IMPORT_LIMIT', limit: 'maxListBytes' });
    expect(failure('huge-tools').message).toContain(
      'sent more than 16777216 bytes of tool definitions (limits.maxListBytes)',
    );
    // One 12 MB message: over stdio (one line), and over Streamable HTTP as a JSON body and as one server-sent event.
    for (const mode of ['huge-page', 'http-huge-json', 'http-huge-sse']) {
      expect(failure(mode)).toMatchObject({ code: 'MCP_IMPORT_LIMIT', limit: 'maxMessageBytes' });
      expect(failure(mode).message).toContain(
        'sent one message larger than 10485760 bytes (limits.maxMessageBytes); the import was stopped',
      );
    }
    for (const mode of ['silent-list', 'silent-init'])
      expect(failure(mode)).toMatchObject({ code: 'MCP_IMPORT_LIMIT', limit: 'timeoutMs' });
    expect(failure('silent-list').message).toContain(
      'did not finish its tool listing within 15000 ms (limits.timeoutMs)',
    );
    // A server that never answers initialize is told apart, with what to try.
    expect(failure('silent-init').message).toContain(
      'never answered the MCP handshake (initialize) within 3000 ms (limits.timeoutMs). Is it an MCP server speaking over stdio?',
    );
    expect(failure('silent-init').message).toContain('pass more with --mcp-env KEY=VALUE');
    expect(seen['fine']).toMatchObject({ tools: ['lookup', 'search'], called: { isError: false } });
    expectHeapKept(report);
    expectFollowingRunFine(report);
  }, 150_000);

  it("a tool with megabytes of description: run_code's SDK and the native schema carry it capped, with a marker; the tool works", async () => {
    const report = await runHostCase<{
      tools: string[];
      runCodeChars: number;
      runCodeMarkers: string[];
      nativeChars: number;
      nativeTail: string;
      nativePropertyChars: number;
      called: BriefResult;
    }>('mcp-huge-description', 128);
    const seen = report.seen;
    expect(seen.tools).toEqual(['lookup']);
    expect(MAX_DESCRIPTION_CHARS).toBe(4096);
    // The tool's description and its property's, each cut to the cap; the rest of the SDK is small.
    expect(seen.runCodeMarkers).toHaveLength(2);
    expect(seen.runCodeChars).toBeLessThan(40_000);
    expect(seen.nativeChars).toBe(MAX_DESCRIPTION_CHARS);
    // The whole native schema (its property's description capped too) stays small.
    expect(seen.nativePropertyChars).toBeLessThan(3 * MAX_DESCRIPTION_CHARS);
    expect(seen.nativeTail).toMatch(/d… \(truncated, \d+ chars\)$/);
    expect(
      Number(/(\d+) chars/.exec(seen.nativeTail)?.[1]) +
        seen.nativeChars -
        seen.nativeTail.length +
        seen.nativeTail.indexOf('…'),
    ).toBe(6_000_000);
    expect(seen.called).toMatchObject({ isError: false });
    expectHeapKept(report);
    expectFollowingRunFine(report);
  }, 150_000);

  it('states its defaults and checks the options before starting anything', async () => {
    expect(DEFAULT_MCP_IMPORT_LIMITS).toEqual({
      maxPages: 100,
      maxTools: 1000,
      maxListBytes: 16 * 1_048_576,
      timeoutMs: 30_000,
      maxMessageBytes: 10 * 1_048_576,
    });
    await expect(connectMcpServer('node -e 0', { limits: { maxPages: 0 } })).rejects.toThrow(
      'connectMcpServer(node -e 0): limits.maxPages must be a positive integer, got 0',
    );
    await expect(connectMcpServer('node -e 0', { limits: { pages: 3 } as never })).rejects.toThrow(
      'unknown MCP import limit "pages"; known: maxPages, maxTools, maxListBytes, timeoutMs, maxMessageBytes',
    );
  });
});

describe('boundedFetch', () => {
  const serve = (body: string[], type: string) => async (): Promise<Response> =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const part of body) controller.enqueue(new TextEncoder().encode(part));
          controller.close();
        },
      }),
      { headers: { 'content-type': type } },
    );

  it('lets events of any number through when each is within the bound, in any chunking, LF or CRLF', async () => {
    const events =
      Array.from({ length: 50 }, (_, i) => `data: ${'e'.repeat(8)}${i}\n\n`).join('') + 'data: last\r\n\r\n';
    for (const size of [1, 3, 7, 64]) {
      const parts = Array.from({ length: Math.ceil(events.length / size) }, (_, i) =>
        events.slice(i * size, (i + 1) * size),
      );
      const response = await boundedFetch(20, serve(parts, 'text/event-stream'))('http://x');
      expect(await response.text()).toBe(events);
    }
  });

  it('errors the body at the first event or JSON body over the bound', async () => {
    await expect(
      (
        await boundedFetch(20, serve(['data: ok\n\n', `data: ${'x'.repeat(30)}\n\n`], 'text/event-stream'))('http://x')
      ).text(),
    ).rejects.toThrow('the MCP server sent a message larger than 20 bytes (limits.maxMessageBytes); it was not read');
    await expect(
      (await boundedFetch(20, serve(['{"a":', `"${'x'.repeat(30)}"}`], 'application/json'))('http://x')).text(),
    ).rejects.toThrow(McpMessageTooLargeError);
  });
});
