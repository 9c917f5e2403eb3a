// `ptc serve --http` (the real executable, a capped heap) against request ids and progress
// tokens meant to be amplified: a 900 KB JSON-RPC id whose run makes hundreds of nested
// calls (each nested callId, journal event and run event used to repeat it), and a long
// progress token (repeated in every notification). The id is hashed into the callId, the
// token is refused; the host survives and its journal stays small.
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_PROGRESS_TOKEN_CHARS } from '../../src/mcp/request-bounds.ts';
import { REPO } from '../mcp/helpers.ts';

const TOOLS = fileURLToPath(new URL('../mcp/fixtures/tools.ts', import.meta.url));
const TOKEN = 'hostile-ids-token-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'ptc-ids-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Answer {
  readonly id?: unknown;
  readonly result?: { isError?: boolean; structuredContent?: unknown };
  readonly error?: { code: number; message: string };
}

/** One POST of a JSON-RPC message; the answer from a JSON or an SSE body. */
async function post(url: string, message: unknown): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  // By its type, not its first bytes: a slow answer's stream opens with keep-alive comments.
  if ((response.headers.get('content-type') ?? '').includes('application/json')) return JSON.parse(text) as Answer;
  const data = text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Answer & { method?: string });
  return data.find((d) => d.method === undefined)!;
}

describe('ptc serve --http and hostile request ids', () => {
  it('hashes a 900 KB request id into the callId (journal stays small, host survives) and refuses a long progress token', async () => {
    const journal = join(dir, 'ids.jsonl');
    const env = { ...process.env, NODE_OPTIONS: '', PTC_SERVE_TOKEN: TOKEN };
    const child = spawn(
      process.execPath,
      [
        '--no-node-snapshot',
        '--max-old-space-size=128',
        'bin/ptc.js',
        'serve',
        '--http',
        '127.0.0.1:0',
        '--mode',
        'ptc',
        '--tools',
        TOOLS,
        '--journal',
        journal,
      ],
      { cwd: REPO, env },
    );
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk;
          const match = /serving MCP over Streamable HTTP at (\S+)/.exec(stderr);
          if (match !== null) resolve(match[1]!);
        });
        void exited.then((code) => reject(new Error(`ptc serve exited (${String(code)}): ${stderr}`)));
      });
      const id = 'i'.repeat(900_000);
      const calls = 300;
      const answer = await post(url, {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          name: 'run_code',
          arguments: {
            description: 'many nested calls',
            code: `let s = 0; for (let i = 0; i < ${calls}; i++) s += (await tools.add({ a: i, b: 0 })).sum; return s;`,
          },
        },
      });
      expect(answer.id).toBe(id);
      expect(answer.result).toMatchObject({ isError: false, structuredContent: { result: (calls * (calls - 1)) / 2 } });
      // Before: 301 calls × (callId + rootCallId + parentCallId + result) × 900 KB ≈ 1 GB of journal.
      expect(statSync(journal).size).toBeLessThan(400_000);
      const first = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!) as { callId: string };
      expect(first.callId).toMatch(/^mcp-[0-9a-f-]{36}:sha256:[0-9a-f]{64}$/);

      const token = 't'.repeat(512 * 1024);
      const refused = await post(url, {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'run_code',
          _meta: { progressToken: token },
          arguments: { description: 'x', code: 'return 1' },
        },
      });
      expect(refused.error).toMatchObject({ code: -32602 });
      expect(refused.error?.message).toContain(`more than the ${MAX_PROGRESS_TOKEN_CHARS}`);
      expect(refused.error!.message.length).toBeLessThan(500);
      // Still serving, and a token at the bound is accepted.
      const ok = await post(url, {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: {
          name: 'run_code',
          _meta: { progressToken: 'p'.repeat(MAX_PROGRESS_TOKEN_CHARS) },
          arguments: { description: 'x', code: 'return 1' },
        },
      });
      expect(ok.result).toMatchObject({ isError: false });
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 120_000);
});
