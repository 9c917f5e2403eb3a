// A task's conversation as decision points, from its gold actions: the customer opens with
// the scenario's request and what they know; the reads before a write gather what it
// needs; each write is preceded by its own decision that explains it and asks for a
// "yes" (the policy's confirmation step), then runs as the next decision.
import type { GoldAction, RetailTask } from './tasks.ts';
import { WRITE_TOOLS } from './tools.ts';

export const CONFIRMATION = 'yes';
export const FAREWELL = 'Thanks, that is all.';

/** The customer's opening message: the scenario's request and the facts they know. */
export function openingMessage(task: RetailTask): string {
  const i = task.user_scenario.instructions;
  return [i.reason_for_call, i.known_info].filter((s) => s !== null && s !== '').join('\n');
}

export interface Segment {
  /** Reads (and calculations, transfers) before the writes, in gold order. */
  readonly reads: readonly GoldAction[];
  /** The writes that follow, each confirmed on its own. */
  readonly writes: readonly GoldAction[];
}

/** Gold actions as segments: reads, then the writes that follow them. */
export function segments(actions: readonly GoldAction[]): Segment[] {
  const out: { reads: GoldAction[]; writes: GoldAction[] }[] = [];
  for (const a of actions) {
    const last = out.at(-1);
    if (WRITE_TOOLS.has(a.name)) {
      if (last === undefined) out.push({ reads: [], writes: [a] });
      else last.writes.push(a);
    } else if (last === undefined || last.writes.length > 0) out.push({ reads: [a], writes: [] });
    else last.reads.push(a);
  }
  return out;
}

/** A short account of a write for the confirmation question. */
export function confirmationText(action: GoldAction): string {
  return `To confirm: ${action.name.replaceAll('_', ' ')} with ${JSON.stringify(action.arguments)}. Shall I proceed (yes/no)?`;
}
