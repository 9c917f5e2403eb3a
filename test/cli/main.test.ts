// The `ptc` CLI in-process through main(argv, io): every command, every exit status
// (0 success, 1 an error result or diagnostics, 2 a usage error as ONE stderr line),
// --tools modules, and the run limits reaching the sandbox. The real executable is
// spawned in ptc-bin.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.ts';
import { createToolRuntime } from '../../src/index.ts';
import { shopTools } from '../../src/demo/shop-tools.ts';

interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

async function cli(...argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join(''), err: err.join('') };
}

/** A usage error: exit 2, nothing on stdout, exactly one line on stderr. */
function expectUsageError(run: CliRun, pattern: RegExp): void {
  expect(run).toMatchObject({ code: 2, out: '' });
  expect(run.err).toMatch(/^ptc: [^\n]+\n$/);
  expect(run.err).toMatch(pattern);
}

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

let dir = '';
const program = (name: string): string => join(dir, name);
const PROGRAMS: Record<string, string> = {
  'ok.ts':
    'const eu = await tools.list_customers({ region: "EU" });\nconsole.log(`${eu.length} EU customers`);\nreturn eu.map((c) => c.id).slice(0, 2);\n',
  'throws.ts': 'console.log("looking");\nthrow new Error("nothing found");\n',
  'no-output.ts': 'await tools.list_customers({});\n',
  'three-calls.ts':
    'for (let i = 0; i < 3; i++) { await tools.list_customers({}); console.log(`call ${i + 1}`); }\nreturn "all three";\n',
  'forever.ts': 'console.log("waiting");\nawait new Promise(() => {});\n',
  'big-buffer.ts': 'return new ArrayBuffer(100 * 2 ** 20).byteLength;\n',
  'wipe.ts': 'return await tools.wipe_disk({});\n',
  'type-error.ts':
    'const customers = await tools.list_customers({ region: "EU" });\nconst n: string = customers.length;\nreturn n;\n',
  'bad-region.ts': 'return await tools.list_customers({ region: "MARS" });\n',
  'clean.ts': 'const customers = await tools.list_customers({ region: "EU" });\nreturn customers.length;\n',
  'greet.ts':
    'const text = await tools.greet({ name: "Ada" });\nconst sum = await tools.add({ a: 2, b: 3 });\nreturn `${text} / ${sum}`;\n',
  'greet-typo.ts': 'return await tools.add({ a: 2, b: "3" });\n',
  'words.ts': 'return await tools.count_words({ text: "one two  three" });\n',
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ptc-cli-'));
  for (const [name, text] of Object.entries(PROGRAMS)) await writeFile(program(name), text);
  await mkdir(program('a-directory'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ptc sdk', () => {
  it('prints the SDK of the built-in tools, byte-identical to rt.sdk()', async () => {
    const rt = createToolRuntime({ sandbox: false });
    for (const tool of shopTools()) rt.register(tool);
    const run = await cli('sdk');
    expect(run).toEqual({ code: 0, out: `${rt.sdk()}\n`, err: '' });
    expect(run.out).toContain('declare const tools');
    expect(run.out).not.toContain('run_code');
    await rt.close();
  });

  it("--tools with a function module, and --agent for that agent's visible tools", async () => {
    const all = await cli('sdk', '--tools', fixture('function-tools.ts'));
    expect(all.code).toBe(0);
    expect(all.out).toMatch(/ count_words: Tool</);
    expect(all.out).toMatch(/ wipe_disk: Tool</);
    const reader = await cli('sdk', '--tools', fixture('function-tools.ts'), '--agent', 'reader');
    expect(reader.code).toBe(0);
    expect(reader.out).toMatch(/ count_words: Tool</);
    expect(reader.out).not.toMatch(/wipe_disk/);
  });

  it('--agent nope is a usage error', async () => {
    expectUsageError(await cli('sdk', '--agent', 'nope'), /--agent nope: no such agent/);
  });
});

describe('ptc schemas', () => {
  const parse = (run: CliRun): unknown[] => {
    expect(run.code).toBe(0);
    expect(run.err).toBe('');
    return JSON.parse(run.out) as unknown[];
  };

  it('--mode ptc: raw, anthropic and openai each carry exactly run_code, description before code', async () => {
    const raw = parse(await cli('schemas', '--mode', 'ptc', '--format', 'raw')) as {
      name: string;
      parameters: { properties: object };
    }[];
    expect(raw.map((s) => s.name)).toEqual(['run_code']);
    expect(Object.keys(raw[0]!.parameters.properties)).toEqual(['description', 'code']);

    const anthropic = parse(await cli('schemas', '--mode', 'ptc', '--format', 'anthropic')) as Record<
      string,
      unknown
    >[];
    expect(anthropic).toHaveLength(1);
    expect(Object.keys(anthropic[0]!).sort()).toEqual(['description', 'input_schema', 'name']);
    expect(anthropic[0]!.name).toBe('run_code');
    expect(Object.keys((anthropic[0]!.input_schema as { properties: object }).properties)).toEqual([
      'description',
      'code',
    ]);

    const openai = parse(await cli('schemas', '--mode', 'ptc', '--format', 'openai')) as {
      type: string;
      function: { name: string; parameters: { properties: object } };
    }[];
    expect(openai).toHaveLength(1);
    expect(openai[0]!.type).toBe('function');
    expect(openai[0]!.function.name).toBe('run_code');
    expect(Object.keys(openai[0]!.function.parameters.properties)).toEqual(['description', 'code']);
  });

  it('native (the default) lists the tools; both adds run_code; --tools applies', async () => {
    const native = parse(await cli('schemas')) as { name: string }[];
    expect(native.map((s) => s.name)).toEqual([
      'flag_order',
      'get_product_sales',
      'get_shipment',
      'list_customers',
      'list_orders',
      'search_products',
    ]);
    const both = parse(await cli('schemas', '--mode', 'both')) as { name: string }[];
    expect(both.map((s) => s.name)).toEqual([...native.map((s) => s.name), 'run_code']);
    const custom = parse(await cli('schemas', '--tools', fixture('array-tools.ts'))) as { name: string }[];
    expect(custom.map((s) => s.name)).toEqual(['add', 'greet']);
  });

  it('an unknown format or mode is a usage error', async () => {
    expectUsageError(
      await cli('schemas', '--format', 'xml'),
      /--format.*xml.*Allowed choices are raw, anthropic, openai/,
    );
    expectUsageError(await cli('schemas', '--mode', 'hybrid'), /--mode.*hybrid/);
  });
});

describe('ptc run', () => {
  it('exit 0: the content on stdout, exactly as run_code renders it', async () => {
    const run = await cli('run', program('ok.ts'));
    expect(run.code).toBe(0);
    expect(run.err).toBe('');
    const [count, ...json] = run.out.trimEnd().split('\n');
    expect(count).toMatch(/^\d+ EU customers$/);
    expect(JSON.parse(json.join('\n'))).toHaveLength(2);
  });

  it('no output prints the fixed line', async () => {
    expect(await cli('run', program('no-output.ts'))).toEqual({
      code: 0,
      out: '(run_code completed with no output)\n',
      err: '',
    });
  });

  it('exit 1 when the program throws: the error text with captured output on stderr', async () => {
    const run = await cli('run', program('throws.ts'));
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toMatch(/^Error: run_code failed \(exception\): .*nothing found/);
    expect(run.err).toContain('Captured output:\nlooking');
  });

  it('exit 1 when a nested call fails and the program does not catch it', async () => {
    const run = await cli('run', program('bad-region.ts'), '--json');
    expect(run.code).toBe(1);
    const result = JSON.parse(run.out) as { error: { message: string } };
    expect(result.error.message).toMatch(/INVALID_ARGS|must be equal to one of the allowed values/);
  });

  it('--json prints one object { isError, value, content, error } for successes and failures', async () => {
    const ok = await cli('run', program('ok.ts'), '--json');
    expect(ok.code).toBe(0);
    expect(ok.out.trimEnd().split('\n')).toHaveLength(1);
    const success = JSON.parse(ok.out) as Record<string, unknown>;
    expect(Object.keys(success)).toEqual(['isError', 'value', 'content', 'error']);
    expect(success.isError).toBe(false);
    expect(success.error).toBeNull();
    expect((success.value as { logs: string[] }).logs).toHaveLength(1);

    const failed = await cli('run', program('throws.ts'), '--json');
    expect(failed.code).toBe(1);
    expect(failed.err).toBe('');
    const failure = JSON.parse(failed.out) as {
      isError: boolean;
      value: unknown;
      error: { code: string; info: { kind: string } };
    };
    expect(failure.isError).toBe(true);
    expect(failure.value).toBeNull();
    expect(failure.error.code).toBe('CODE_RUN_FAILED');
    expect(failure.error.info.kind).toBe('exception');
  });

  it('--max-calls reaches the sandbox: the limit ends the run with kind call-limit', async () => {
    const limited = JSON.parse((await cli('run', program('three-calls.ts'), '--max-calls', '2', '--json')).out) as {
      error: { info: { kind: string; logs: string[] } };
    };
    expect(limited.error.info.kind).toBe('call-limit');
    expect(limited.error.info.logs).toEqual(['call 1', 'call 2']);
    const enough = await cli('run', program('three-calls.ts'), '--max-calls', '3');
    expect(enough).toMatchObject({ code: 0, out: 'call 1\ncall 2\ncall 3\nall three\n' });
  });

  it('--timeout-ms reaches the sandbox: a program that waits forever ends with kind timeout', async () => {
    // (Captured output on a timeout is pinned through the API; here the deadline also
    // covers the cold start of the CLI's fresh sandbox process, so the log may not exist yet.)
    // The compile shares that deadline: compiled once first (programs are kept by their text),
    // so that a loaded machine's slow compiler start does not make it a compile failure.
    const warm = await cli('run', program('forever.ts'), '--timeout-ms', '3000');
    expect(warm.err).toMatch(/run_code failed \(timeout\)/);
    const run = await cli('run', program('forever.ts'), '--timeout-ms', '300');
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/run_code failed \(timeout\): .*300 ms/);
  });

  it('--memory-mb reaches the sandbox: a 100 MiB buffer fails under 64 MiB and fits in 256 MiB', async () => {
    const small = JSON.parse((await cli('run', program('big-buffer.ts'), '--memory-mb', '64', '--json')).out) as {
      error: { info: { kind: string } };
    };
    expect(small.error.info.kind).toBe('memory');
    expect(await cli('run', program('big-buffer.ts'), '--memory-mb', '256')).toEqual({
      code: 0,
      out: `${100 * 2 ** 20}\n`,
      err: '',
    });
  });

  it('--tools with an array module and with a function module', async () => {
    expect(await cli('run', program('greet.ts'), '--tools', fixture('array-tools.ts'))).toEqual({
      code: 0,
      out: 'hello, Ada / 5\n',
      err: '',
    });
    expect(await cli('run', program('words.ts'), '--tools', fixture('function-tools.ts'))).toEqual({
      code: 0,
      out: '3\n',
      err: '',
    });
  });

  it('--typecheck: off runs a mistyped program, warn runs it and appends the errors, error refuses it (exit 1)', async () => {
    expect(await cli('run', program('type-error.ts'))).toEqual({ code: 0, out: '16\n', err: '' });
    expect(await cli('run', program('type-error.ts'), '--typecheck', 'warn')).toEqual({
      code: 0,
      out: "16\n\nType errors (the program ran anyway):\n2:7 Type 'number' is not assignable to type 'string'.\n",
      err: '',
    });
    expect(await cli('run', program('type-error.ts'), '--typecheck', 'error')).toEqual({
      code: 1,
      out: '',
      err: "Error: run_code failed (compile): the program does not type-check against the SDK (typecheck: 'error'); it did not run:\n2:7 Type 'number' is not assignable to type 'string'.\n",
    });
    expect(await cli('run', program('clean.ts'), '--typecheck', 'error')).toEqual({ code: 0, out: '16\n', err: '' });
    expectUsageError(await cli('run', program('clean.ts'), '--typecheck', 'strict'), /--typecheck/);
  });

  it('--mode both runs the same program', async () => {
    expect((await cli('run', program('no-output.ts'), '--mode', 'both')).code).toBe(0);
  });

  it('bad flags are usage errors, one line each', async () => {
    expectUsageError(
      await cli('run', program('ok.ts'), '--timeout-ms', 'abc'),
      /--timeout-ms must be a positive integer, got "abc"/,
    );
    expectUsageError(await cli('run', program('ok.ts'), '--max-calls', '0'), /--max-calls must be a positive integer/);
    expectUsageError(
      await cli('run', program('ok.ts'), '--memory-mb', '1.5'),
      /--memory-mb must be a positive integer/,
    );
    expectUsageError(await cli('run', program('ok.ts'), '--memory-mb', '4'), /--memory-mb must be at least 8, got 4/);
    expectUsageError(await cli('run', program('ok.ts'), '--bogus'), /unknown option '--bogus'/);
    expectUsageError(await cli('run', program('ok.ts'), '--mode', 'native'), /--mode.*native/);
    expectUsageError(await cli('run'), /missing required argument 'file'/);
    expectUsageError(
      await cli('run', program('ok.ts'), '--approval', 'pause'),
      /--approval pause needs --journal <file\|url>: a paused run lives in the journal/,
    );
    expectUsageError(
      await cli('run', program('ok.ts'), '--journal', join(dir, 'no-such-folder', 'runs.jsonl')),
      /--journal/,
    );
    expectUsageError(await cli('run', program('ok.ts'), 'extra'), /too many arguments/);
  });

  it('an unreadable program file is a usage error', async () => {
    expectUsageError(await cli('run', program('missing.ts')), /cannot read program file ".*missing\.ts": ENOENT/);
    expectUsageError(await cli('run', program('a-directory')), /cannot read program file ".*a-directory": EISDIR/);
  });

  it('a bad --tools module is a usage error: missing, wrong export, throwing registration, failing import', async () => {
    expectUsageError(
      await cli('run', program('ok.ts'), '--tools', fixture('nope.ts')),
      /--tools .*nope\.ts: no such file/,
    );
    expectUsageError(
      await cli('run', program('ok.ts'), '--tools', fixture('not-tools.ts')),
      /the default export must be an array of defineTool\(\) definitions or a function/,
    );
    expectUsageError(
      await cli('run', program('ok.ts'), '--tools', fixture('throwing-tools.ts')),
      /registering the tools failed: .*throwing-tools\.ts:5:9: the tools could not be set up/,
    );
    expectUsageError(
      await cli('sdk', '--tools', fixture('failing-import.ts')),
      /could not load the module: .*failing-import\.ts:2:7: this module cannot be loaded/,
    );
  });
});

describe('--agent on run and check', () => {
  it('runs and checks as the agent: its restriction hides the tool from the SDK and from the program', async () => {
    const tools = fixture('function-tools.ts');
    expect((await cli('run', program('wipe.ts'), '--tools', tools)).code).toBe(0);
    const asReader = await cli('run', program('wipe.ts'), '--tools', tools, '--agent', 'reader');
    expect(asReader.code).toBe(1);
    expect(asReader.err).toMatch(/tools\.wipe_disk is not a function[\s\S]*Available tools: "count_words"/);
    expect((await cli('check', program('wipe.ts'), '--tools', tools)).code).toBe(0);
    const checked = await cli('check', program('wipe.ts'), '--tools', tools, '--agent', 'reader');
    expect(checked.code).toBe(1);
    expect(checked.out).toMatch(/^1:\d+ Property 'wipe_disk' does not exist/);
    expectUsageError(
      await cli('check', program('wipe.ts'), '--tools', tools, '--agent', 'nobody'),
      /--agent nobody: no such agent/,
    );
  });
});

describe('ptc check', () => {
  it('a type error: exit 1 and `line:column message` on stdout', async () => {
    const run = await cli('check', program('type-error.ts'));
    expect(run).toEqual({ code: 1, out: "2:7 Type 'number' is not assignable to type 'string'.\n", err: '' });
  });

  it('a clean program: exit 0, no output', async () => {
    expect(await cli('check', program('clean.ts'))).toEqual({ code: 0, out: '', err: '' });
  });

  it("checks against the --tools module's SDK", async () => {
    expect((await cli('check', program('greet.ts'), '--tools', fixture('array-tools.ts'))).code).toBe(0);
    const typo = await cli('check', program('greet-typo.ts'), '--tools', fixture('array-tools.ts'));
    expect(typo.code).toBe(1);
    expect(typo.out).toMatch(/^1:\d+ .*'string' is not assignable to type 'number'/);
  });

  it('an unreadable file is a usage error', async () => {
    expectUsageError(await cli('check', program('missing.ts')), /cannot read program file/);
  });
});

describe('the command line itself', () => {
  it('--help and help: usage on stdout, exit 0', async () => {
    for (const argv of [['--help'], ['help'], ['run', '--help']]) {
      const run = await cli(...argv);
      expect(run.code).toBe(0);
      expect(run.out).toMatch(/^Usage: ptc/);
      expect(run.err).toBe('');
    }
  });

  it('no command, an unknown command, an unknown global option: usage errors, one line', async () => {
    expectUsageError(await cli(), /missing command: one of demo, sdk, schemas, run, check/);
    expectUsageError(await cli('frob'), /unknown command 'frob'/);
    expectUsageError(await cli('help', 'frob'), /unknown command 'frob'/);
    expectUsageError(await cli('--bogus'), /unknown option '--bogus'/);
  });
});
