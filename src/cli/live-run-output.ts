// `ptc run` on a terminal: the program's log lines are printed as it prints them (from
// the runtime's `run/log` events), so a long run shows progress; the final output then
// adds only what is left, the returned value. Off a terminal (pipes, --json) the output
// is printed once at the end, exactly as the model would read it.
import type { ToolResult } from '../pipeline/tool-result.ts';
import { NO_OUTPUT_TEXT, renderRunCodeText, type RunCodeValue } from '../ptc/run-code-output.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';

export interface LiveRunOutput {
  /** The text to print once the run is over (failures keep their whole text). */
  finalText(result: ToolResult): string;
  stop(): void;
}

export function printLogsLive(rt: ToolRuntime, runCallId: string, out: (text: string) => void): LiveRunOutput {
  let printed = 0;
  const stop = rt.on('run/log', (event) => {
    if (event.runCallId !== runCallId) return;
    printed += 1;
    out(`${event.line}\n`);
  });
  return {
    finalText(result) {
      const text = result.content.map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`)).join('\n');
      if (result.isError) return text;
      const value = result.value as RunCodeValue | undefined;
      if (value === undefined || value.logs.length !== printed) return text; // nothing streamed as expected: print it all
      if (value.result === undefined) return printed === 0 ? NO_OUTPUT_TEXT : '';
      return renderRunCodeText({ logs: [], result: value.result });
    },
    stop,
  };
}
