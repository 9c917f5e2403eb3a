// The plans part of the approvals page: every plan waiting for an operator's approval
// (`planApproval`), newest first, with the writes its commit will make (tool, title,
// arguments) and the program, and one decision for the whole plan: approve or reject.
// Everything that comes from a plan — description, program, titles, arguments — is
// hostile input: escaped, folded and cut as the runs' calls are (approvals-html.ts).
// Above them, the undos of failed commits that a crash interrupted, each with a button
// that finishes it on this server (its tools revert what is left, last first).
import type { PlanAwaitingApproval } from '../preview/plan-approval.ts';
import type { InterruptedUndo } from '../preview/undo-journal.ts';
import { age, esc, iso, jsonHtml, label, MAX_TREE_CALLS, type PlansPart } from './approvals-html.ts';

/** Plans the page lists at most (the newest). */
export const MAX_PLANS_ON_PAGE = 100;
/** Characters of a plan's program shown (plans.json has it all). */
export const MAX_SHOWN_CODE_CHARS = 8_000;

/** What the page and its live updates compare to know whether the plans changed. */
export function plansKey(plans: readonly Pick<PlanAwaitingApproval, 'planId'>[]): string {
  return JSON.stringify(plans.map((p) => p.planId));
}

function writesHtml(plan: PlanAwaitingApproval): string {
  const shown = plan.writes
    .slice(0, MAX_TREE_CALLS)
    .map(
      (w) =>
        `<li class="write" data-seq="${w.seq}" data-name="${esc(w.name)}">` +
        `<h4><code class="tool">${esc(w.name)}</code> <span class="title">${w.title === undefined ? '' : label(w.title)}</span></h4>` +
        `<pre class="args">${jsonHtml(w.arguments)}</pre></li>`,
    );
  const rest = plan.writes.length - shown.length;
  return (
    `<ol class="plan-writes">${shown.join('')}</ol>` +
    (rest > 0 ? `<p class="note">… ${rest} more writes (plans.json has all)</p>` : '')
  );
}

function planHtml(plan: PlanAwaitingApproval, now: number): string {
  const n = plan.writes.length;
  const code =
    plan.code.length <= MAX_SHOWN_CODE_CHARS
      ? esc(plan.code)
      : `${esc(plan.code.slice(0, MAX_SHOWN_CODE_CHARS))}\n<span class="note">… ${plan.code.length} characters (plans.json has all)</span>`;
  return (
    `<section class="plan" data-plan-id="${esc(plan.planId)}">` +
    `<h2>${label(plan.description)}</h2>` +
    `<p class="meta"><span class="status">plan</span> · plan <code>${esc(plan.planId)}</code> · agent ` +
    `<code>${esc(plan.agent ?? '(global)')}</code>${plan.principal === undefined ? '' : ` · for <code>${esc(plan.principal)}</code>`}` +
    ` · previewed ${iso(plan.createdAt)} (${age(now - plan.createdAt)} ago), expires ${iso(plan.expiresAt)} (in ${age(plan.expiresAt - now)})</p>` +
    `<h3>Waiting for your approval: ${n} write${n === 1 ? '' : 's'}, nothing run yet` +
    `${plan.partial === true ? ' (partial: the plan ends at a write the program needs the result of)' : ''}</h3>` +
    writesHtml(plan) +
    `<details class="program"><summary>The program (${plan.reads} read${plan.reads === 1 ? '' : 's'} ran in the preview)</summary>` +
    `<pre class="code">${code}</pre></details>` +
    `<p class="actions"><button type="button" class="approve-plan" data-plan-id="${esc(plan.planId)}">Approve the whole plan</button> ` +
    `<button type="button" class="reject-plan" data-plan-id="${esc(plan.planId)}">Reject the plan</button></p>` +
    '</section>'
  );
}

const writeList = (writes: InterruptedUndo['applied'], empty: string): string =>
  writes.length === 0
    ? `<p class="note">${empty}</p>`
    : `<ol class="undo-writes">${writes
        .slice(0, MAX_TREE_CALLS)
        .map(
          (w) =>
            `<li class="write" data-seq="${w.seq}" data-name="${esc(w.name)}"><code class="tool">#${w.seq} ${esc(w.name)}</code>` +
            `(<code class="args">${jsonHtml(w.arguments)}</code>)</li>`,
        )
        .join('')}</ol>`;

function undoHtml(undo: InterruptedUndo, now: number): string {
  return (
    `<section class="undo" data-plan-id="${esc(undo.planId)}">` +
    `<h2>A failed commit's undo was interrupted</h2>` +
    `<p class="meta"><span class="status">undo</span> · plan <code>${esc(undo.planId)}</code> · agent ` +
    `<code>${esc(undo.agent ?? '(global)')}</code>${undo.principal === undefined ? '' : ` · for <code>${esc(undo.principal)}</code>`}` +
    ` · started ${iso(undo.startedAt)} (${age(now - undo.startedAt)} ago)</p>` +
    '<p>The process that was undoing this commit stopped. Finishing the undo reverts what is left, last first ' +
    '(a revert that was running when it stopped runs again).</p>' +
    `<h3>Still to revert</h3>${writeList(undo.pending, 'nothing')}` +
    `<details class="calls"><summary>Applied ${undo.applied.length}, reverted before it stopped ${undo.undone.length}</summary>` +
    `${writeList(undo.applied, 'no write was applied')}</details>` +
    `<p class="actions"><button type="button" class="finish-undo" data-plan-id="${esc(undo.planId)}">Finish the undo</button></p>` +
    '</section>'
  );
}

/**
 * The plans part of the page: the interrupted undos, then the first MAX_PLANS_ON_PAGE of
 * `plans` (newest first); keyed by all of them.
 */
export function plansPart(
  plans: readonly PlanAwaitingApproval[],
  undos: readonly InterruptedUndo[],
  now: number,
): PlansPart {
  const shown = plans.slice(0, MAX_PLANS_ON_PAGE).map((p) => planHtml(p, now));
  const rest = plans.length - shown.length;
  const more = rest > 0 ? `<p class="note">… ${rest} more plans wait (plans.json has all)</p>` : '';
  const undone = undos.slice(0, MAX_PLANS_ON_PAGE).map((u) => undoHtml(u, now));
  return { html: undone.join('') + shown.join('') + more, key: plansKey([...undos, ...plans]) };
}
