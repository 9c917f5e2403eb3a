// The execution that stands for one program a provider runs (hosted mode). It is not a
// tool anyone can call: only a hosted conversation starts it, through its own view of
// the pipeline. It passes the pipeline like any call — write-ahead record, policy
// (hooks may deny or ask about the program itself), an OpenTelemetry span — and its
// body stays open until the provider reports the program's end, so the program's calls
// nest under it: `exec.parentCallId` is the program id, the journal and the replay tree
// put them under it, and their spans are children of its span.
import { defineTool, type Tool } from '../definition/define-tool.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { ToolExecution } from '../pipeline/tool-execution.ts';

/** The name a hosted program's execution has in hooks, the journal and traces. */
export const HOSTED_PROGRAM = 'hosted_program';

/** How a hosted program ended, as the provider reported it. */
export interface HostedProgramOutcome {
  /** Completed normally (Anthropic: return code 0; OpenAI: status `completed`). */
  readonly ok: boolean;
  /** What the program printed or returned (stdout, the program output's `result`). */
  readonly output: string;
  /** The provider's own end record (return code, stderr, status), kept as the execution's value. */
  readonly detail: JsonValue;
}

/** Runs the body of the program execution `exec`: resolves when the provider reports its end. */
export type HostedProgramBody = (exec: ToolExecution) => Promise<HostedProgramOutcome>;

export function hostedProgramTool(body: HostedProgramBody): Tool {
  return defineTool({
    name: HOSTED_PROGRAM,
    description: 'A program the model provider runs in its own sandbox (hosted mode); its tool calls nest under it.',
    parameters: {
      provider: { type: 'string', required: true, description: 'anthropic or openai' },
      code: { type: 'string', required: true, description: 'The program source, as the provider reported it' },
    },
    output: {
      schema: { type: 'json' },
      render: (_args, value) => {
        const output = (value as { output?: unknown } | null)?.output;
        return [{ type: 'text', text: typeof output === 'string' ? output : JSON.stringify(value) }];
      },
    },
    async execute(_args, exec) {
      const outcome = await body(exec);
      if (!outcome.ok) throw new Error(`hosted program did not complete: ${outcome.output}`);
      return { output: outcome.output, detail: outcome.detail };
    },
  });
}
