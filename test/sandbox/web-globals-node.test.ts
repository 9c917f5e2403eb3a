// The web-standard globals behave as Node's for what a program observes: every program of
// the corpus (retry with backoff, polling, race with timeout, URL building, base64 of
// JSON, hashing, cloning, ...) gives the same result in plain Node and in the sandbox.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import type { HostCallOutcome, JsonValue } from '../../sandbox/types.ts';
import {
  CORPUS,
  runTool,
  TOOL_NAMES,
  type ToolFailure,
  type ToolState,
  wrapProgram,
} from './fixtures/web-globals-corpus.ts';

const RUNNER = fileURLToPath(new URL('./fixtures/run-corpus-in-node.ts', import.meta.url));

interface NodeOutcome {
  readonly ok: boolean;
  readonly result?: JsonValue;
  readonly message?: string;
}

let nodeOutcomes: Record<string, NodeOutcome> | undefined;
function inNode(name: string): NodeOutcome {
  nodeOutcomes ??= JSON.parse(
    execFileSync(process.execPath, ['--no-warnings', RUNNER], { encoding: 'utf8', timeout: 60_000 }),
  ) as Record<string, NodeOutcome>;
  const outcome = nodeOutcomes[name];
  if (outcome === undefined) throw new Error(`the Node runner did not run "${name}"`);
  return outcome;
}

describe.each(['in-process', 'process'] as const)('web globals match Node (%s)', (isolation) => {
  const sandbox = createSandbox({ isolation, poolSize: 1, limits: { wallTimeMs: 20_000, cpuTimeMs: 10_000 } });
  afterAll(() => sandbox.close());

  it.each(CORPUS.map((program) => [program.name, program.code] as const))('%s', async (name, code) => {
    const expected = inNode(name);
    expect(expected.ok).toBe(true);
    const state: ToolState = {};
    const outcome = await sandbox.run({
      code: wrapProgram(code),
      toolNames: [...TOOL_NAMES],
      hostCall: async (request): Promise<HostCallOutcome> => {
        try {
          const value = await runTool(request.toolName, JSON.parse(request.argsJson) as Record<string, unknown>, state);
          return { ok: true, valueJson: JSON.stringify(value) };
        } catch (error) {
          const failure = error as ToolFailure;
          return { ok: false, code: failure.code, message: failure.message };
        }
      },
    });
    if (!outcome.ok) throw new Error(`${name}: ${outcome.kind}: ${outcome.message}`);
    expect(outcome.result).toStrictEqual(expected.result);
  });
});
