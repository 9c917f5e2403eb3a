// The scripted run_code model: one program per decision point. For each segment of the
// plan (reads, then the writes they lead to) it writes a program that makes the reads and
// returns each coming write's arguments, derived from the data (see ptc-program.ts);
// then, per write, a confirmation question (answered "yes") and a small program that
// makes the write with the arguments the first program returned. The model reads only
// what programs return.
import { callStore } from './grade.ts';
import type { ModelReply, ModelRequest, TaskModel } from './model.ts';
import { FINAL_ANSWER } from './native-oracle.ts';
import { CONFIRMATION, confirmationText, segments, type Segment } from './plan.ts';
import { ProgramWriter } from './ptc-program.ts';
import { parseDb } from './retail-db.ts';
import { RetailStore } from './retail-store.ts';
import type { GoldAction } from './tasks.ts';

interface PlannedWrite {
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

/** The value a run_code result carries (its JSON text), from the last message of the request. */
function lastProgramValue(request: ModelRequest): unknown {
  const last = request.messages.at(-1);
  if (last === undefined || last.role !== 'user' || typeof last.content === 'string') return undefined;
  for (const block of last.content)
    if (block.type === 'tool_result')
      for (const c of block.content)
        if (c.type === 'text') {
          try {
            return JSON.parse(c.text);
          } catch {
            throw new Error(`run_code failed: ${c.text.slice(0, 400)}`);
          }
        }
  return undefined;
}

/** What a write program hands back: the order's new status, or that the address changed. */
const writeCall = (w: PlannedWrite): string => `await tools.${w.tool}(${JSON.stringify(w.args)})`;

/** The write as the first line of a longer program: `done` holds what writeProgram returns. */
const doneLine = (w: PlannedWrite): string =>
  w.tool === 'modify_user_address'
    ? `${writeCall(w)};\nconst done = "updated";`
    : `const done = (${writeCall(w)}).status;`;

function writeProgram(w: PlannedWrite): string {
  return w.tool === 'modify_user_address' ? `${writeCall(w)};\nreturn "updated";` : `return (${writeCall(w)}).status;`;
}

export class PtcOracle implements TaskModel {
  private readonly segments: Segment[];
  /** The database as the customer and the model's programs will find it (the plan replayed). */
  private readonly world: RetailStore;
  private segment = 0;
  private pending: PlannedWrite[] = [];
  private step: 'gather' | 'confirm' | 'write' | 'done' = 'gather';
  private ids = 0;
  private lastText: 'confirm' | 'final' | undefined;

  constructor(plan: readonly GoldAction[], dbText: string) {
    this.segments = segments(plan);
    this.world = new RetailStore(parseDb(dbText));
  }

  private runCode(description: string, code: string): ModelReply {
    return {
      content: [{ type: 'tool_use', id: `toolu_${++this.ids}`, name: 'run_code', input: { description, code } }],
    };
  }

  async respond(request: ModelRequest): Promise<ModelReply> {
    if (this.step === 'write') {
      const w = this.pending.shift() as PlannedWrite;
      callStore(this.world, w.tool, w.args);
      if (this.pending.length > 0) {
        this.step = 'confirm';
        return this.runCode(`Make the change the customer confirmed (${w.tool})`, writeProgram(w));
      }
      // The last confirmed write of this stretch: the same program goes on to look up what
      // the customer's next request needs (it reads the database as the write left it).
      this.step = 'gather';
      this.segment++;
      const next = this.segments[this.segment];
      if (next === undefined)
        return this.runCode(`Make the change the customer confirmed (${w.tool})`, writeProgram(w));
      this.awaiting = true;
      return this.runCode(
        `Make the change the customer confirmed (${w.tool}), then look up what the next request needs`,
        this.gatherProgram(next, request, [doneLine(w)], ['status: done']),
      );
    }
    if (this.step === 'confirm') {
      const w = this.pending[0] as PlannedWrite;
      this.step = 'write';
      this.lastText = 'confirm';
      return {
        content: [{ type: 'text', text: confirmationText({ action_id: '', name: w.tool, arguments: w.args }) }],
      };
    }
    // gather: the answer of the program just run, or the next segment's program
    const last = request.messages.at(-1);
    const answered = last !== undefined && last.role === 'user' && typeof last.content !== 'string';
    if (answered && this.step === 'gather' && this.awaiting) {
      this.awaiting = false;
      const value = lastProgramValue(request) as { writes?: PlannedWrite[] } | undefined;
      this.pending = [...(value?.writes ?? [])];
      if (this.pending.length > 0) {
        this.step = 'confirm';
        return this.respond(request);
      }
      this.segment++;
    }
    const seg = this.segments[this.segment];
    if (seg === undefined) {
      this.lastText = 'final';
      return { content: [{ type: 'text', text: FINAL_ANSWER }] };
    }
    this.awaiting = true;
    return this.runCode('Look up what the request needs', this.gatherProgram(seg, request));
  }

  private gatherProgram(
    seg: Segment,
    request: ModelRequest,
    before: string[] = [],
    answerFirst: string[] = [],
  ): string {
    const writer = new ProgramWriter(this.world.db, JSON.stringify(request.messages));
    for (const a of seg.reads) writer.read(a, callStore(this.world, a.name, a.arguments).value);
    for (const w of seg.writes) writer.write(w);
    return writer.text(before, answerFirst);
  }

  private awaiting = false;

  customerReply(): string | undefined {
    const last = this.lastText;
    this.lastText = undefined;
    return last === 'confirm' ? CONFIRMATION : undefined;
  }
}
