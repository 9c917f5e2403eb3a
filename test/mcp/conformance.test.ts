// The official MCP conformance suite (@modelcontextprotocol/conformance, every server
// scenario) against a real `ptc serve --http`. The suite cannot send a header, so a
// forwarding proxy in front adds the bearer token (token-proxy.ts); the server runs as
// a user starts it. Every scenario that applies to a tools-only server must pass; the
// others test what this server does not offer (prompts, resources, completion) or call
// the suite's own named tools (test_simple_text, test_reconnection, …), and are listed so
// that a scenario added to the suite fails this test until it is classified.
import { afterEach, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, spawnServe } from './helpers.ts';
import { startTokenProxy } from './token-proxy.ts';

const TOKEN = 'conformance-token-0123456789';
const SUITE = join(REPO, 'node_modules', '@modelcontextprotocol', 'conformance');
const SUITE_VERSION = (JSON.parse(readFileSync(join(SUITE, 'package.json'), 'utf8')) as { version: string }).version;

/** Scenarios a tools-only server must pass. */
const APPLICABLE = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

/** Not offered by a tools-only server. */
const NOT_OFFERED = [
  'completion-complete',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
];

/** Call a tool the suite names (test_simple_text, test_reconnection, …) that a server must implement for the test. */
const SUITE_TOOLS = [
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'json-schema-2020-12',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  'server-sse-polling',
];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
  details?: Record<string, unknown>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function runSuite(url: string, out: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(SUITE, 'dist', 'index.js'), 'server', '--url', url, '--suite', 'all', '-o', out],
      { cwd: out, timeout: 45_000, env: { ...process.env, NODE_OPTIONS: '' } },
      // The suite exits 1 when any scenario fails (the ones that do not apply do): its results are read from `out`.
      (error, stdout, stderr) =>
        error?.killed ? reject(new Error(`suite timed out: ${stderr}`)) : resolve(stdout + stderr),
    );
  });
}

/** Checks by scenario, from the suite's `<out>/server-<scenario>-<timestamp>/checks.json`. */
function readResults(out: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const dir of readdirSync(out)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/u.exec(dir);
    if (match !== null) results.set(match[1]!, JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')));
  }
  return results;
}

describe(`the official MCP conformance suite ${SUITE_VERSION} against ptc serve --http`, () => {
  it('passes every scenario that applies to a tools-only server', async () => {
    const serve = await spawnServe(cleanups, ['--mode', 'ptc', '--tools', 'test/mcp/fixtures/tools.ts'], {
      PTC_SERVE_TOKEN: TOKEN,
    });
    const proxy = await startTokenProxy(serve.url, TOKEN);
    cleanups.push(() => proxy.close());
    const out = mkdtempSync(join(tmpdir(), 'ptc-conformance-'));
    cleanups.push(async () => rmSync(out, { recursive: true, force: true }));

    const printed = await runSuite(proxy.url, out);
    const results = readResults(out);
    expect([...results.keys()].sort()).toEqual([...APPLICABLE, ...NOT_OFFERED, ...SUITE_TOOLS].sort());
    for (const scenario of APPLICABLE) {
      const checks = results.get(scenario)!;
      const failed = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      expect([scenario, failed]).toEqual([scenario, []]);
      expect(checks.some((c) => c.status === 'SUCCESS')).toBe(true);
    }
    expect(printed).toContain('dns-rebinding-protection: 2 passed, 0 failed');
    // The polling scenario calls its own test_reconnection tool; the events it read carry ids all the same.
    const polled = results.get('server-sse-polling')!.filter((c) => c.id === 'incoming-sse-event');
    expect(polled.length).toBeGreaterThan(0);
    for (const event of polled) expect(event.details?.eventId).toMatch(/^[0-9a-f-]{36}\.\d+$/u);
  }, 60_000);
});
