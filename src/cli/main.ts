// The `ptc` command line. Exit status: 0 success, 1 the result is an error (or
// diagnostics were found), 2 a usage error (one line on stderr).
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { resolveLimits } from '../../sandbox/limits.ts';
import type { SandboxLimits } from '../../sandbox/types.ts';
import { checkProgram } from '../../sdk-gen/index.ts';
import { createToolRuntime, type ToolRuntime, type ToolRuntimeOptions } from '../runtime/create-tool-runtime.ts';
import type { ToolMode } from '../ptc/mode-declarations.ts';
import { runDemo } from './run-demo.ts';
import { formatSchemas, SCHEMA_FORMATS, type SchemaFormat } from './format-schemas.ts';
import { o200kCounter } from './count-tokens.ts';
import { formatSdkStats, sdkStats, STATS_FORMATS, type StatsFormat } from './sdk-stats.ts';
import {
  loadMcpServers,
  loadTools,
  type McpCliOptions,
  type McpHeaderFlag,
  type McpUrlPrefixFlag,
} from './load-tools.ts';
import { printLogsLive, type LiveRunOutput } from './live-run-output.ts';
import { openJournalOption } from './journal-option.ts';
import { addSessionsCommand } from './sessions-command.ts';
import { readProgram } from './read-program.ts';
import { checkPython } from './check-python.ts';
import { planHttpServe, serveHttpUntilSignal, type HttpServeFlags } from './serve-http.ts';
import { UsageError } from './usage-error.ts';
import { addRunsCommand } from './runs-command.ts';
import { GUEST_COMMANDS, guestOptionOf, withGuestOption } from './guest-option.ts';
import type { ProgramGuest } from '../ptc/program-guest.ts';

/** From src/cli (a checkout) or dist/src/cli (the built package), package.json is two or three levels up. */
const PACKAGE_VERSION = ((): string => {
  for (const up of ['../../package.json', '../../../package.json']) {
    const url = new URL(up, import.meta.url);
    if (existsSync(url)) return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
  }
  return 'unknown';
})();

const positiveInt =
  (flag: string) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0)
      throw new InvalidArgumentError(`${flag} must be a positive integer, got "${value}"`);
    return n;
  };

const nonNegativeInt =
  (flag: string) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0)
      throw new InvalidArgumentError(`${flag} must be a whole number of 0 or more, got "${value}"`);
    return n;
  };

interface Io {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** `ptc run` prints log lines as they happen (stdout is a terminal). @default false */
  readonly liveLogs?: boolean;
}

/** Where a command's tools come from: `--tools`, `--mcp`, and `--demo-tools`. */
interface ToolSources extends McpCliOptions {
  readonly tools?: string;
  /** `--guest`: the language of run_code programs. */
  readonly guest?: ProgramGuest;
  readonly demoTools?: boolean;
}

/**
 * The built-in example tools (which include one that changes data, `flag_order`) are
 * loaded only when asked for with --demo-tools, or when no other tools are given:
 * never beside your own --tools, --mcp or --mcp-url tools.
 */
const wantsDemoTools = (o: ToolSources): boolean =>
  o.demoTools === true || (o.tools === undefined && (o.mcp ?? []).length === 0 && (o.mcpUrl ?? []).length === 0);

async function withRuntime<T>(
  options: ToolRuntimeOptions,
  sources: ToolSources,
  body: (rt: ToolRuntime) => Promise<T>,
  warn: (text: string) => void,
): Promise<T> {
  // Tools' timeoutMs is enforced: createToolRuntime installs the timeout policy by default.
  const rt = createToolRuntime({ ...options, ...guestOptionOf(sources) });
  let closeMcp = async (): Promise<void> => {};
  try {
    if (wantsDemoTools(sources)) await loadTools(rt, undefined);
    if (sources.tools !== undefined) await loadTools(rt, sources.tools);
    closeMcp = await loadMcpServers(rt, sources, (message) => warn(`ptc: warning: ${message}\n`));
    return await body(rt);
  } finally {
    await closeMcp();
    await rt.close();
  }
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `--mcp`, `--mcp-prefix`, `--mcp-env`, `--mcp-url`, `--mcp-header`, `--mcp-url-prefix` and `--demo-tools`, on every command that loads tools. */
function withMcpOptions(command: Command): Command {
  // Commander parses options in command-line order: a header or a prefix belongs to the --mcp-url before it.
  let urls = 0;
  return command
    .option(
      '--mcp <command line>',
      'also import the tools of this MCP server, started over stdio (repeatable)',
      collect,
    )
    .option(
      '--mcp-prefix <prefix>',
      'name prefix for the tools of the n-th --mcp server, against collisions (repeatable, in order)',
      collect,
    )
    .option(
      '--mcp-env <KEY=VALUE>',
      "a variable for every --mcp server, besides the MCP SDK's default subset (HOME, PATH, USER, …); KEY alone passes ours on (repeatable)",
      collect,
    )
    .option(
      '--mcp-url <url>',
      'also import the tools of this remote MCP server (Streamable HTTP) (repeatable)',
      (value: string, previous: string[] = []) => {
        urls += 1;
        return [...previous, value];
      },
    )
    .option(
      '--mcp-header <Name: value>',
      'an HTTP header (e.g. "Authorization: Bearer …") for the --mcp-url before it (repeatable)',
      (value: string, previous: McpHeaderFlag[] = []) => [...previous, { server: urls - 1, header: value }],
    )
    .option(
      '--mcp-url-prefix <prefix>',
      'name prefix for the tools of the --mcp-url before it, against collisions (e.g. with run_code of a --mode ptc server)',
      (value: string, previous: McpUrlPrefixFlag[] = []) => [...previous, { server: urls - 1, prefix: value }],
    )
    .option(
      '--demo-tools',
      'also load the built-in example shop tools (loaded by default only when no --tools, --mcp or --mcp-url is given)',
    );
}

function agentOption(rt: ToolRuntime, agent: string | undefined): { agent?: string } {
  if (agent === undefined) return {};
  if (!agentExists(rt, agent)) {
    throw new UsageError(`--agent ${agent}: no such agent (a --tools function creates agents with rt.createAgent)`);
  }
  return { agent };
}
function agentExists(rt: ToolRuntime, agent: string): boolean {
  try {
    rt.mode({ agent });
    return true;
  } catch {
    return false;
  }
}

/** A word for a shell command line: quoted when it holds anything but plain path characters. */
const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/u.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

/** A journal URL's password stays out of what is printed. */
function withoutPassword(journal: string): string {
  if (!/^postgres(?:ql)?:\/\//u.test(journal)) return journal;
  try {
    const url = new URL(journal);
    if (url.password === '') return journal;
    url.password = '****';
    return url.href;
  } catch {
    return 'postgres://…';
  }
}

/** What `ptc run` prints under a paused run: the command that decides its calls. */
function nextStep(runId: string, o: { journal?: string; tools?: string }): string {
  const tools = o.tools === undefined ? '' : ` --tools ${shellWord(o.tools)}`;
  return `Decide with: ptc runs approve|deny ${runId} --journal ${shellWord(withoutPassword(o.journal ?? ''))}${tools}`;
}

// Long: the CLI's command table, one commander declaration per command and its options in
// the order `ptc --help` lists them; the work each command does lives in functions of its own.
export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command('ptc')
    .description('Programmatic tool calling: run model-written TypeScript against your tools, safely.')
    .exitOverride()
    // Errors are reported by main() as one line; help asked for goes to stdout, and the
    // help commander would dump on stderr for a missing command is replaced by one line too.
    .configureOutput({ writeOut: io.out, writeErr: () => {}, outputError: () => {} })
    .showHelpAfterError(false)
    .version(PACKAGE_VERSION, '-V, --version', 'print the ptc-runtime version');

  program
    .command('demo')
    .description('Answer one multi-step question over the built-in shop tools twice (native vs run_code) and compare')
    .option(
      '--model-latency-ms <n>',
      'assumed latency of one model round trip, added per round trip to the wall time (default 1000; 0 for tool time only)',
      nonNegativeInt('--model-latency-ms'),
    )
    .action(async (o: { modelLatencyMs?: number }) => {
      const ok = await runDemo(io.out, o.modelLatencyMs === undefined ? {} : { modelLatencyMs: o.modelLatencyMs });
      setExit(ok ? 0 : 1);
    });

  program
    .command('sdk')
    .description('Print the TypeScript SDK a model would see (--stats: its tokens against the native definitions)')
    .option(
      '--tools <module>',
      'module whose default export is an array of tools or a function (runtime) => void (the built-in example tools are loaded only without --tools and --mcp)',
    )
    .option('--agent <id>', 'the agent whose visible tools form the SDK')
    .option(
      '--stats',
      'print token counts (o200k_base) of the SDK, its preamble and output types, and of the native definitions, per tool',
    )
    .addOption(
      new Option('--format <format>', 'with --stats: the provider format of the native definitions')
        .choices([...STATS_FORMATS])
        .default('anthropic'),
    )
    .option('--json', 'with --stats: print the figures as one JSON object')
    .action(async (o: { agent?: string; stats?: boolean; format: StatsFormat; json?: boolean } & ToolSources) => {
      if (o.stats !== true && o.json === true) throw new UsageError('--json goes with --stats');
      const counter = o.stats === true ? await o200kCounter() : undefined;
      await withRuntime(
        // Both modes: the native definitions and run_code, measured side by side.
        { mode: counter === undefined ? 'ptc' : 'both' },
        o,
        async (rt) => {
          const agent = agentOption(rt, o.agent);
          if (counter === undefined) {
            io.out(`${rt.sdk(agent)}\n`);
            return;
          }
          const stats = sdkStats(rt, counter, { ...agent, format: o.format });
          io.out(o.json === true ? `${JSON.stringify(stats)}\n` : formatSdkStats(stats));
        },
        io.err,
      );
      setExit(0);
    });

  program
    .command('schemas')
    .description(
      'Print the tool list a provider would receive (in ptc/both, run_code carries the SDK in its description)',
    )
    .option('--tools <module>', 'tools module (the built-in example tools are loaded only without --tools and --mcp)')
    .addOption(new Option('--mode <mode>', 'tool mode').choices(['native', 'ptc', 'both']).default('native'))
    .addOption(new Option('--format <format>', 'provider format').choices([...SCHEMA_FORMATS]).default('raw'))
    .action(async (o: { mode: ToolMode; format: SchemaFormat } & ToolSources) => {
      // A bare tool list stands alone: run_code's description carries the SDK (the runtime's default).
      await withRuntime(
        { mode: o.mode },
        o,
        async (rt) => {
          io.out(`${JSON.stringify(formatSchemas(rt.schemas(), o.format), null, 2)}\n`);
        },
        io.err,
      );
      setExit(0);
    });

  program
    .command('run')
    .description('Run a program exactly as run_code would and print its content')
    .argument('<file>', 'program file, or - for standard input')
    .option('--tools <module>', 'tools module (the built-in example tools are loaded only without --tools and --mcp)')
    .addOption(new Option('--mode <mode>', 'tool mode').choices(['ptc', 'both']).default('ptc'))
    .option('--timeout-ms <n>', 'wall-clock deadline of the run', positiveInt('--timeout-ms'))
    .option('--memory-mb <n>', 'isolate heap limit', positiveInt('--memory-mb'))
    .option('--max-calls <n>', 'tool calls per run', positiveInt('--max-calls'))
    .addOption(
      new Option(
        '--typecheck <mode>',
        'type-check the program against the SDK first: warn runs it and appends the errors, error refuses it',
      )
        .choices(['off', 'warn', 'error'])
        .default('off'),
    )
    .option('--json', 'print the run_code result as one JSON object')
    .option('--agent <id>', 'run as this agent (its scope, restrictions and guards)')
    .option(
      '--journal <file|url>',
      'durable journal of the run (JSONL; .db/.sqlite: SQLite; postgres://…: PostgreSQL): a paused or interrupted run is continued with ptc runs',
    )
    .addOption(
      new Option(
        '--approval <mode>',
        "pause: a gated call (a --tools hook's ask()) pauses the run for a human; ptc runs approve|deny continues it (needs --journal)",
      ).choices(['pause']),
    )
    .option(
      '--preview',
      "preview: reads run, writes (tools without effect: 'read') do not; prints the plan of writes the program would make",
    )
    .action(
      async (
        file: string,
        o: {
          preview?: boolean;
          mode: ToolMode;
          timeoutMs?: number;
          memoryMb?: number;
          maxCalls?: number;
          typecheck: 'off' | 'warn' | 'error';
          json?: boolean;
          agent?: string;
          journal?: string;
          approval?: 'pause';
        } & ToolSources,
      ) => {
        if (o.approval !== undefined && o.journal === undefined) {
          throw new UsageError('--approval pause needs --journal <file|url>: a paused run lives in the journal');
        }
        const code = await readProgram(file);
        const limits: Partial<SandboxLimits> = {
          ...(o.timeoutMs === undefined ? {} : { wallTimeMs: o.timeoutMs }),
          ...(o.memoryMb === undefined ? {} : { memoryMb: o.memoryMb }),
          ...(o.maxCalls === undefined ? {} : { maxCalls: o.maxCalls }),
        };
        try {
          resolveLimits(undefined, limits); // e.g. --memory-mb below the sandbox's minimum is a usage error
        } catch (error) {
          const flags: Record<string, string> = {
            wallTimeMs: '--timeout-ms',
            memoryMb: '--memory-mb',
            maxCalls: '--max-calls',
          };
          throw new UsageError(
            (error as Error).message.replace(/^sandbox limit (\w+)/, (_m, key: string) => flags[key] ?? key),
          );
        }
        let live: LiveRunOutput | undefined;
        const opened = await openJournalOption(o.journal);
        // Runs of one journal are told apart by their call: each `ptc run` on it is a call of its own.
        const callId = opened === undefined ? 'cli-run' : `cli-run-${randomUUID().slice(0, 8)}`;
        const result = await withRuntime(
          {
            mode: o.mode,
            limits,
            typecheck: o.typecheck,
            ...(o.preview === true ? { planArguments: true } : {}),
            ...(opened === undefined ? {} : { journal: opened.journal }),
            ...(o.approval === 'pause' ? { approval: { request: async () => 'pause' as const } } : {}),
          },
          o,
          async (rt) => {
            if (io.liveLogs === true && o.json !== true) live = printLogsLive(rt, callId, io.out);
            try {
              return await rt.execute({
                callId,
                name: 'run_code',
                arguments: { description: `ptc run ${file}`, code, ...(o.preview === true ? { preview: true } : {}) },
                ...agentOption(rt, o.agent),
              });
            } finally {
              live?.stop();
            }
          },
          io.err,
        ).finally(() => opened?.close());
        if (o.json === true) {
          io.out(
            `${JSON.stringify({ isError: result.isError, value: result.value ?? null, content: result.content, error: result.error ?? null })}\n`,
          );
        } else {
          const text =
            live === undefined
              ? result.content.map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`)).join('\n')
              : live.finalText(result);
          if (text !== '') (result.isError ? io.err : io.out)(`${text}\n`);
          const paused = (result.value as { paused?: { runId: string } } | undefined)?.paused;
          if (paused !== undefined) io.out(`${nextStep(paused.runId, o)}\n`);
        }
        setExit(result.isError ? 1 : 0);
      },
    );

  program
    .command('check')
    .description('Type-check a program against the SDK; prints line:column message')
    .argument('<file>', 'program file, or - for standard input')
    .option('--tools <module>', 'tools module (the built-in example tools are loaded only without --tools and --mcp)')
    .option('--agent <id>', "check against this agent's SDK (its visible tools)")
    .action(async (file: string, o: { agent?: string } & ToolSources) => {
      const code = await readProgram(file);
      const diagnostics = await withRuntime(
        { mode: 'ptc' },
        o,
        async (rt) => {
          const agent = agentOption(rt, o.agent);
          return rt.guest(agent) === 'python' ? checkPython(rt.sdk(agent), code) : checkProgram(rt.sdk(agent), code);
        },
        io.err,
      );
      if (typeof diagnostics === 'string') io.out(`${diagnostics}\n`);
      else for (const d of diagnostics) io.out(`${d.line}:${d.column} ${d.message}\n`);
      setExit(diagnostics.length > 0 ? 1 : 0);
    });

  program
    .command('serve')
    .description(
      'Serve the tools as an MCP server over stdio (stdout carries only MCP messages) until the client disconnects, or over Streamable HTTP with --http',
    )
    .option('--tools <module>', 'tools module (the built-in example tools are loaded only without --tools and --mcp)')
    .addOption(
      new Option(
        '--mode <mode>',
        'tool mode: ptc exposes run_code only (the SDK in its description), both exposes everything',
      )
        .choices(['native', 'ptc', 'both'])
        .default('native'),
    )
    .option(
      '--http <host:port>',
      'serve MCP over Streamable HTTP (stateless) at http://<host:port>/mcp instead of stdio; needs PTC_SERVE_TOKEN unless loopback',
    )
    .option(
      '--allowed-host <name>',
      '--http: a Host name clients may use besides loopback and the bound address (repeatable; required when binding 0.0.0.0)',
      collect,
    )
    .option(
      '--allowed-origin <origin>',
      '--http: an Origin browsers may send (repeatable; default: requests with an Origin are refused)',
      collect,
    )
    .option('--max-body-bytes <n>', '--http: largest request body (default 1048576)', positiveInt('--max-body-bytes'))
    .option(
      '--keep-alive-ms <n>',
      "--http: how long an idle kept-alive connection stays open (default 5000, at most 600000); behind a proxy, set it above the proxy's idle timeout",
      positiveInt('--keep-alive-ms'),
    )
    .option(
      '--journal <file|url>',
      'durable journal of every call (JSONL; .db/.sqlite: SQLite, one file per process; postgres://…: PostgreSQL, shared by servers)',
    )
    .option('--agent <id>', "serve as this agent: its mode, visible tools and policy apply to every client's call")
    .addOption(
      new Option(
        '--approval <mode>',
        "pause: gated calls (a --tools hook's ask()) pause the run for a human, who resumes it as the operator (--http: PTC_OPERATOR_TOKEN; stdio: --operator-tools); needs --journal (with postgres://… any server of the journal resumes)",
      ).choices(['pause']),
    )
    .option(
      '--operator-tools',
      'stdio: also list the operator tools ptc_runs and ptc_resume (needs --journal); the stdio client then holds both roles and can approve its own paused calls. Over --http the operator has its own token, PTC_OPERATOR_TOKEN',
    )
    .option(
      '--plan-approval',
      "--http: the model previews and commits plans (run_code's preview and commit); every plan waits for the operator's approval of the whole plan on the /runs page before its commit runs (needs --journal and PTC_OPERATOR_TOKEN)",
    )
    .option(
      '--sessions',
      "sessions: run_code takes `session` and programs keep data in `state` for the next program (stored in --journal's store: PostgreSQL shares them between servers; without --journal, in memory)",
    )
    .option(
      '--session-ttl-ms <n>',
      '--sessions: idle time after which a session expires (default 86400000: 24 h)',
      positiveInt('--session-ttl-ms'),
    )
    .option(
      '--max-active-runs <n>',
      'cap on run_code runs in flight at once; one more is refused at once as busy (default: no cap, runs are admitted by CPU slots and memory)',
      positiveInt('--max-active-runs'),
    )
    .option(
      '--memory-mb <n>',
      'run_code isolate heap limit in MiB (default 128); each run in flight reserves it in the memory budget, so a lower one admits more runs at once',
      positiveInt('--memory-mb'),
    )
    .action(
      async (
        o: {
          tools?: string;
          mode: ToolMode;
          http?: string;
          allowedHost?: string[];
          allowedOrigin?: string[];
          maxBodyBytes?: number;
          keepAliveMs?: number;
          journal?: string;
          maxActiveRuns?: number;
          memoryMb?: number;
          agent?: string;
          approval?: 'pause';
          operatorTools?: boolean;
          planApproval?: boolean;
          sessions?: boolean;
          sessionTtlMs?: number;
        } & ToolSources,
      ) => {
        if (
          o.http === undefined &&
          (o.allowedHost !== undefined ||
            o.allowedOrigin !== undefined ||
            o.maxBodyBytes !== undefined ||
            o.keepAliveMs !== undefined)
        ) {
          throw new UsageError(
            '--allowed-host, --allowed-origin, --max-body-bytes and --keep-alive-ms apply to --http only',
          );
        }
        // Address and token are checked before any tool or server starts.
        if (o.approval !== undefined && o.journal === undefined) {
          throw new UsageError('--approval pause needs --journal <file|url>: a paused run lives in the journal');
        }
        if (o.operatorTools === true && o.http !== undefined)
          throw new UsageError(
            '--operator-tools applies to stdio only: over --http the operator uses its own token (PTC_OPERATOR_TOKEN)',
          );
        if (o.operatorTools === true && o.journal === undefined)
          throw new UsageError(
            '--operator-tools needs --journal <file|url>: the operator tools answer for its durable runs',
          );
        if (o.sessionTtlMs !== undefined && o.sessions !== true)
          throw new UsageError('--session-ttl-ms applies with --sessions only');
        const pausing = o.approval === 'pause';
        const flags: HttpServeFlags | undefined = o.http === undefined ? undefined : { ...o, http: o.http };
        const plan = flags === undefined ? undefined : planHttpServe(flags, process.env);
        if (o.planApproval === true && (plan === undefined || plan.operator.token === undefined))
          throw new UsageError(
            `--plan-approval needs the operator's page: --http, --journal and PTC_OPERATOR_TOKEN${plan !== undefined && 'off' in plan.operator ? ` (${plan.operator.off})` : ''}`,
          );
        const opened = await openJournalOption(o.journal);
        const options: ToolRuntimeOptions = {
          mode: o.mode,
          ...(o.planApproval === true ? { planArguments: true, planApproval: true } : {}),
          ...(opened === undefined ? {} : { journal: opened.journal }),
          ...(o.maxActiveRuns === undefined ? {} : { maxActiveRuns: o.maxActiveRuns }),
          ...(o.memoryMb === undefined ? {} : { limits: { memoryMb: o.memoryMb } }),
          ...(pausing ? { approval: { request: async () => 'pause' as const } } : {}),
          ...(o.sessions === true ? { sessions: o.sessionTtlMs === undefined ? true : { ttlMs: o.sessionTtlMs } } : {}),
        };
        try {
          if (flags !== undefined && plan !== undefined) {
            await withRuntime(
              options,
              o,
              (rt) => serveHttpUntilSignal(rt, plan, { ...flags, ...agentOption(rt, o.agent) }, io.err),
              io.err,
            );
          } else {
            if (o.operatorTools === true)
              io.err(
                'ptc: warning: --operator-tools: the stdio client holds both roles, model and operator: it can list paused runs and approve its own gated calls\n',
              );
            await serveStdio(options, o, o.agent, o.operatorTools === true);
          }
        } finally {
          await opened?.close();
        }
        setExit(0);
      },
    );

  // stdio: until the client closes stdin, or SIGINT/SIGTERM.
  const serveStdio = async (
    options: ToolRuntimeOptions,
    o: ToolSources,
    agent: string | undefined,
    operatorTools: boolean,
  ): Promise<void> => {
    await withRuntime(
      options,
      o,
      async (rt) => {
        const { serveMcpStdio } = await import('../mcp/index.ts');
        const scope = agentOption(rt, agent);
        const stop = new AbortController();
        const onSignal = (): void => stop.abort();
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        try {
          await serveMcpStdio(rt, {
            signal: stop.signal,
            ...scope,
            ...(operatorTools ? { role: 'model+operator' as const } : {}),
          });
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
      },
      io.err,
    );
  };

  addRunsCommand(program, io, setExit, withRuntime);
  addSessionsCommand(program, io, setExit);

  // Every command that loads tools can also import MCP servers' tools.
  for (const command of program.commands) {
    if (['sdk', 'schemas', 'run', 'check', 'serve'].includes(command.name())) withMcpOptions(command);
    if (command.name() === 'runs') for (const sub of command.commands) withMcpOptions(withGuestOption(sub));
    if (GUEST_COMMANDS.includes(command.name())) withGuestOption(command);
  }

  return program;
}

/** Runs the CLI; resolves to the exit status. */
export async function main(
  argv: readonly string[],
  io: Io = {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    liveLogs: process.stdout.isTTY === true,
  },
): Promise<number> {
  let exit = 0;
  const program = buildProgram(io, (code) => (exit = code));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exit;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0; // --help, --version
      if (error.code === 'commander.help') {
        const asked = argv[0] === 'help' ? argv[1] : undefined; // `ptc help <unknown>`
        io.err(
          `ptc: ${asked === undefined ? 'missing command' : `unknown command '${asked}'`}: one of ${program.commands.map((c) => c.name()).join(', ')} (ptc --help describes them)\n`,
        );
        return 2;
      }
      // An id or a file name that starts with '-' reads as an option unless it follows `--`.
      const hint = error.code === 'commander.unknownOption' ? ' (an argument that starts with - goes after --)' : '';
      io.err(`ptc: ${error.message.replace(/^error: /, '')}${hint}\n`);
      return 2;
    }
    if (error instanceof UsageError) {
      io.err(`ptc: ${error.message}\n`);
      return 2;
    }
    io.err(`ptc: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}
