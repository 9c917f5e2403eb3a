// `ptc runs list|show|approve|deny|resume --journal <path>`: an operator's view of the
// durable runs in a journal. list/show read it; approve/deny decide pending calls and
// resume the run (in this process, with the same tools as the host that paused it:
// --tools, --mcp or --mcp-url, which they require); resume continues an interrupted run.
// undos lists the undos of failed commits a crash interrupted; finish-undo finishes one.
import { type Command, Option } from 'commander';
import type { ToolMode } from '../ptc/mode-declarations.ts';
import type { ToolRuntime, ToolRuntimeOptions } from '../runtime/create-tool-runtime.ts';
import type { DurableRunSummary } from '../runtime/durable-runs.ts';
import type { ToolResult } from '../pipeline/tool-result.ts';
import { openJournalOption } from './journal-option.ts';
import { UsageError } from './usage-error.ts';
import { RunResumeError } from '../errors/run-resume-error.ts';
import { PlanError } from '../errors/plan-error.ts';

interface RunsIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

type WithRuntime = <T>(
  options: ToolRuntimeOptions,
  sources: { readonly tools?: string; readonly demoTools?: boolean },
  body: (rt: ToolRuntime) => Promise<T>,
  warn: (text: string) => void,
) => Promise<T>;

interface RunsFlags {
  journal?: string;
  tools?: string;
  mcp?: string[];
  mcpUrl?: string[];
  demoTools?: boolean;
  mode: ToolMode;
  json?: boolean;
}

export function addRunsCommand(
  program: Command,
  io: RunsIo,
  setExit: (code: number) => void,
  withRuntime: WithRuntime,
): void {
  const runs = program
    .command('runs')
    .description(
      'Durable runs in a journal: list paused and interrupted runs, show one, approve or deny its pending calls, resume it',
    );

  const common = (command: Command): Command =>
    command
      .requiredOption(
        '--journal <file|url>',
        'the journal of the host that ran the programs (JSONL; .db/.sqlite: SQLite; postgres://…: PostgreSQL, any host of it)',
      )
      .option('--tools <module>', "the same tools module as the host (approve, deny and resume need the host's tools)")
      .addOption(new Option('--mode <mode>', 'tool mode of the host').choices(['ptc', 'both']).default('ptc'))
      .option('--json', 'print JSON');

  const withJournal = async <T>(o: RunsFlags, body: (rt: ToolRuntime) => Promise<T>): Promise<T> => {
    const opened = await openJournalOption(o.journal);
    if (opened === undefined) throw new UsageError('--journal <file> is required');
    try {
      // An operator cannot answer a new approval here: a gated call met while resuming pauses the run again.
      return await withRuntime(
        { mode: o.mode, journal: opened.journal, approval: { request: async () => 'pause' } },
        o,
        body,
        io.err,
      );
    } finally {
      await opened.close();
    }
  };

  // Resuming against other tools than the host's would fail the program on the first
  // missing one: without any tools given, refuse before the journal is opened.
  const requireTools = (command: string, o: RunsFlags): void => {
    if (o.tools === undefined && (o.mcp ?? []).length === 0 && (o.mcpUrl ?? []).length === 0 && o.demoTools !== true)
      throw new UsageError(
        `runs ${command} resumes the run in this process: give the host's tools with --tools <module>, --mcp <command line> or --mcp-url <url>`,
      );
  };

  const findRun = async (rt: ToolRuntime, runId: string): Promise<DurableRunSummary> => {
    const run = (await rt.runs()).find((r) => r.runId === runId);
    if (run === undefined)
      throw new UsageError(`no paused or interrupted run ${runId} in this journal (ptc runs list shows them)`);
    return run;
  };

  // A refused resume (busy, expired, not pending, ...) is one line and exit status 1.
  const resume = async (
    rt: ToolRuntime,
    runId: string,
    decisions: Record<string, 'approve' | 'deny'>,
  ): Promise<ToolResult | undefined> => {
    try {
      return await rt.resume(runId, decisions);
    } catch (error) {
      if (!(error instanceof RunResumeError)) throw error;
      io.err(`ptc: ${error.message} (${error.code})\n`);
      setExit(1);
      return undefined;
    }
  };

  const printResult = (result: ToolResult | undefined, json: boolean | undefined): void => {
    if (result === undefined) return;
    if (json === true) io.out(`${JSON.stringify(result, null, 2)}\n`);
    else for (const block of result.content) if (block.type === 'text') io.out(`${block.text}\n`);
    setExit(result.isError ? 1 : 0);
  };

  common(runs.command('list').description('List the paused and interrupted runs')).action(async (o: RunsFlags) => {
    await withJournal(o, async (rt) => {
      const list = await rt.runs();
      if (o.json === true) io.out(`${JSON.stringify(list, null, 2)}\n`);
      else if (list.length === 0) io.out('no paused or interrupted runs\n');
      else
        for (const r of list)
          io.out(
            `${r.runId}  ${r.status.padEnd(11)}  ${r.callId}  ${r.pending.length} pending  ${new Date(r.updatedAt).toISOString()}  ${r.description}\n`,
          );
    });
    setExit(0);
  });

  common(runs.command('show').description('Show one run and its pending calls').argument('<runId>')).action(
    async (runId: string, o: RunsFlags) => {
      await withJournal(o, async (rt) => {
        const run = await findRun(rt, runId);
        if (o.json === true) {
          io.out(`${JSON.stringify(run, null, 2)}\n`);
          return;
        }
        io.out(
          `run ${run.runId} (${run.status}) — ${run.description}\ncall ${run.callId}${run.agent === undefined ? '' : `, agent ${run.agent}`}, started ${new Date(run.startedAt).toISOString()}` +
            `${run.expiresAt === undefined ? '' : `, expires ${new Date(run.expiresAt).toISOString()}`}\n`,
        );
        for (const p of run.pending)
          io.out(`  pending ${p.callId}: tools.${p.name}(${JSON.stringify(p.arguments)}) — ${p.title}\n`);
      });
      setExit(0);
    },
  );

  for (const decision of ['approve', 'deny'] as const) {
    common(
      runs
        .command(decision)
        .description(
          `${decision === 'approve' ? 'Approve' : 'Deny'} pending calls (all of them unless named) and resume the run`,
        )
        .argument('<runId>')
        .argument('[callIds...]', 'pending calls to decide (default: every pending call)'),
    ).action(async (runId: string, callIds: string[], o: RunsFlags) => {
      requireTools(decision, o);
      await withJournal(o, async (rt) => {
        const run = await findRun(rt, runId);
        const ids = callIds.length > 0 ? callIds : run.pending.map((p) => p.callId);
        printResult(await resume(rt, runId, Object.fromEntries(ids.map((id) => [id, decision]))), o.json);
      });
    });
  }

  common(runs.command('undos').description('List the undos of failed commits that a crash interrupted')).action(
    async (o: RunsFlags) => {
      await withJournal(o, async (rt) => {
        const list = await rt.undos();
        if (o.json === true) io.out(`${JSON.stringify(list, null, 2)}\n`);
        else if (list.length === 0) io.out('no interrupted undos\n');
        else
          for (const u of list)
            io.out(
              `${u.planId}  ${u.applied.length} applied  ${u.undone.length} undone  ${u.pending.length} to revert  ${new Date(u.startedAt).toISOString()}\n`,
            );
      });
      setExit(0);
    },
  );

  common(
    runs
      .command('finish-undo')
      .description(
        "Finish an interrupted undo: the reverts not recorded as done run, last first (needs the host's tools)",
      )
      .argument('<planId>'),
  ).action(async (planId: string, o: RunsFlags) => {
    requireTools('finish-undo', o);
    await withJournal(o, async (rt) => {
      try {
        const outcome = await rt.resumeUndo(planId);
        if (o.json === true) io.out(`${JSON.stringify(outcome, null, 2)}\n`);
        else {
          const list = (ws: readonly { seq: number; name: string }[]) =>
            ws.map((w) => `#${w.seq} tools.${w.name}`).join(', ') || 'none';
          io.out(
            `plan ${outcome.planId}: applied ${list(outcome.applied)}; undone (last first) ${list(outcome.undone)}\n`,
          );
          for (const w of outcome.notUndone) io.out(`  NOT undone #${w.seq} tools.${w.name}: ${w.reason}\n`);
        }
        setExit(0);
      } catch (error) {
        if (!(error instanceof PlanError)) throw error;
        io.err(`ptc: ${error.message} (${error.code})\n`);
        setExit(1);
      }
    });
  });

  common(
    runs
      .command('resume')
      .description('Resume a run (an interrupted one, or a paused one without new decisions)')
      .argument('<runId>'),
  ).action(async (runId: string, o: RunsFlags) => {
    requireTools('resume', o);
    await withJournal(o, async (rt) => {
      await findRun(rt, runId);
      printResult(await resume(rt, runId, {}), o.json);
    });
  });
}
