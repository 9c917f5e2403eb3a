// What a model (or a log) reads of a previewing or committing run_code result, and the
// run_code parameters that let the model preview and commit (`planArguments`).
import type { JsonValue } from '../json/json-value.ts';
import type { PlannedWrite } from './plan-record.ts';
import type { CommitOutcome } from './undo.ts';

/** run_code's `preview` and `commit` parameters (only with `planArguments: true`). */
export const planArgumentParameters = {
  preview: {
    type: 'boolean',
    description:
      'Preview: reads run, writes do not; the result lists the writes the program would make and a plan token. ' +
      'Show the plan before committing it.',
  },
  commit: {
    type: 'string',
    maxLength: 4096,
    description:
      'Commit a preview: the token from its result, with the same description and code. Exactly the previewed writes run; ' +
      'anything else stops the program before it runs (PLAN_MISMATCH).',
  },
} as const;

const callText = (w: { seq: number; name: string; arguments: JsonValue; title?: string }): string => {
  const args = JSON.stringify(w.arguments);
  return `  #${w.seq} ${w.title ?? `tools.${w.name}(${args.length > 300 ? `${args.slice(0, 300)}…` : args})`}`;
};

/** The plan or the commit's outcome as text lines, or undefined for another result. */
export function planRunText(value: { readonly plan?: unknown; readonly commit?: unknown }): string | undefined {
  if (value.plan !== undefined) {
    const plan = value.plan as {
      token: string;
      expiresAt: number;
      writes: PlannedWrite[];
      reads: number;
      partial?: true;
      awaitsApproval?: true;
    };
    const lines = [
      `Plan: ${plan.writes.length} write(s), not run yet (${plan.reads} read(s) ran)${plan.partial === true ? '; partial: it ends at a pivot write' : ''}:`,
      ...plan.writes.map(callText),
      `Plan token (commit it to run exactly these writes; expires ${new Date(plan.expiresAt).toISOString()}): ${plan.token}`,
      ...(plan.awaitsApproval === true
        ? [
            "This plan waits for an operator's approval: commit it once it is approved (until then the commit is refused with PLAN_NOT_APPROVED; a rejected plan is PLAN_REJECTED).",
          ]
        : []),
    ];
    return lines.join('\n');
  }
  if (value.commit !== undefined) {
    const commit = value.commit as CommitOutcome;
    return [
      `Committed plan ${commit.planId}: ${commit.applied.length} write(s) applied:`,
      ...commit.applied.map(callText),
    ].join('\n');
  }
  return undefined;
}
