// The calls a durable run's program made, as the journal has them: each with its
// arguments and committed result, nested under the call that made it (a composite
// tool's own calls under it), newest first. What an operator reads before deciding.
import type { JsonValue } from '../json/json-value.ts';
import type { JournalEvent, ToolCallEvent, ToolResultEvent } from '../journal/journal.ts';
import type { RunStartEvent } from '../journal/run-journal-events.ts';

/** One call of a run's program (`rt.runCalls`). */
export interface RunCall {
  readonly callId: string;
  readonly name: string;
  readonly arguments: JsonValue;
  /** The committed result; absent while none is journaled (in flight, or awaiting a decision). */
  readonly result?: {
    readonly isError: boolean;
    readonly value?: JsonValue;
    readonly error?: { readonly code: string; readonly message: string };
  };
  /** When the result was committed, in ms since the epoch. */
  readonly at?: number;
  /** The calls this one made (a composite tool's), newest first. */
  readonly calls: readonly RunCall[];
}

interface Node {
  call: ToolCallEvent;
  result: ToolResultEvent | undefined;
  children: Node[];
}

/** The call tree of the run that `start` began, from the journal's events (its later attempts included). */
export function runCallTree(events: readonly JournalEvent[], start: RunStartEvent): RunCall[] {
  const root = start.callId;
  const nodes = new Map<string, Node>();
  const order: Node[] = [];
  let inRun = false;
  for (const event of events) {
    if (event.type === 'run/start' && event.callId === root) {
      // A later run with the same run_code callId ends this one's stretch of the journal.
      if (inRun && event.runId !== start.runId) break;
      inRun = event.runId === start.runId;
      continue;
    }
    if (!inRun) continue;
    if (event.type === 'tool/call' && event.rootCallId === root && event.parentCallId !== undefined) {
      const known = nodes.get(event.callId);
      if (known !== undefined) {
        known.call = event; // a re-run's attempt of the same call: its latest arguments
        continue;
      }
      const node: Node = { call: event, result: undefined, children: [] };
      nodes.set(event.callId, node);
      order.push(node);
    } else if (event.type === 'tool/result') {
      const node = nodes.get(event.callId);
      if (node !== undefined) node.result = event;
    }
  }
  const top: Node[] = [];
  for (const node of order) {
    const parent = node.call.parentCallId === root ? undefined : nodes.get(node.call.parentCallId!);
    (parent === undefined ? top : parent.children).push(node);
  }
  const shape = (node: Node): RunCall => {
    const r = node.result?.result;
    return {
      callId: node.call.callId,
      name: node.call.name,
      arguments: node.call.arguments,
      ...(r === undefined
        ? {}
        : {
            result: {
              isError: r.isError,
              ...(r.value === undefined ? {} : { value: r.value }),
              ...(r.error === undefined ? {} : { error: { code: r.error.code, message: r.error.message } }),
            },
          }),
      ...(node.result?.at === undefined ? {} : { at: node.result.at }),
      calls: node.children.map(shape).reverse(),
    };
  };
  return top.map(shape).reverse();
}
