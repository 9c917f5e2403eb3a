// The approvals page (`GET /runs`), rendered on the server: every paused or interrupted
// run in the operator's scope with its pending calls (tool, title, arguments as JSON with
// long strings folded) and the calls its program already made, as a tree with their
// results, newest first. It reads without JavaScript; the script (approvals-script.ts)
// only adds sign-in, live updates and the decision buttons. Everything that comes from
// a run — tool names, titles, arguments, results — is hostile input: it is escaped here,
// and the Content-Security-Policy lets only this page's own script (by nonce) run.
import { ERROR_CODES } from '../errors/error-codes.ts';
import type { JsonValue } from '../json/json-value.ts';
import type { DurableRunSummary } from '../runtime/durable-runs.ts';
import type { RunCall } from '../runtime/run-call-tree.ts';

/** A run as the page shows it: its summary and the calls its program made. */
export interface RunOnPage {
  readonly summary: DurableRunSummary;
  readonly calls: readonly RunCall[];
}

/** Characters of a string value shown before it is folded (the rest is behind "show all"). */
export const FOLD_STRING_CHARS = 160;
/** Characters of folded strings one shown value holds at most (runs.json has the whole value). */
export const MAX_SHOWN_STRING_CHARS = 16_384;
/** Entries of one array or object shown; the rest are counted. */
export const MAX_SHOWN_ENTRIES = 100;
/** Characters of a title or description shown (they come from the run: hostile, unbounded). */
export const MAX_LABEL_CHARS = 300;
/** Calls of a run's tree the page shows at most (the newest); the rest is counted. */
export const MAX_TREE_CALLS = 200;

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
/** Escapes text for HTML element content and quoted attribute values. */
export const esc = (text: string): string => text.replace(/[&<>"']/gu, (c) => ESCAPES[c]!);

/** What the page and its live updates compare to know whether the list changed. */
export function runsKey(runs: readonly Pick<DurableRunSummary, 'runId' | 'status' | 'pending'>[]): string {
  return JSON.stringify(runs.map((r) => [r.runId, r.status, r.pending.map((p) => p.callId)]));
}

function stringHtml(value: string, budget: { left: number }): string {
  if (value.length <= FOLD_STRING_CHARS) return esc(JSON.stringify(value));
  const shown = value.slice(0, Math.max(FOLD_STRING_CHARS, budget.left));
  budget.left -= shown.length;
  const cut = value.length > shown.length ? ` (the first ${shown.length} shown; runs.json has all)` : '';
  return (
    `<details class="fold"><summary>${esc(JSON.stringify(value.slice(0, FOLD_STRING_CHARS)).slice(0, -1))}…" ` +
    `<span class="note">${value.length} characters</span></summary>${esc(JSON.stringify(shown))}` +
    `<span class="note">${cut}</span></details>`
  );
}

const more = (n: number, indent: string): string =>
  n <= 0 ? '' : `,\n${indent}<span class="note">… ${n} more (runs.json has all)</span>`;

/**
 * JSON, indented, as escaped HTML: a long string shows its start and folds the rest into
 * a <details>; one value shows at most MAX_SHOWN_STRING_CHARS of folded text and
 * MAX_SHOWN_ENTRIES entries per array or object.
 */
export function jsonHtml(value: JsonValue | undefined, indent = '', budget = { left: MAX_SHOWN_STRING_CHARS }): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return stringHtml(value, budget);
  if (value === null || typeof value !== 'object') return esc(JSON.stringify(value));
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const shown = value.slice(0, MAX_SHOWN_ENTRIES).map((v) => inner + jsonHtml(v, inner, budget));
    return `[\n${shown.join(',\n')}${more(value.length - MAX_SHOWN_ENTRIES, inner)}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const shown = entries
    .slice(0, MAX_SHOWN_ENTRIES)
    .map(([k, v]) => `${inner}${stringHtml(k, budget)}: ${jsonHtml(v, inner, budget)}`);
  return `{\n${shown.join(',\n')}${more(entries.length - MAX_SHOWN_ENTRIES, inner)}\n${indent}}`;
}

/** A label from the run, escaped and cut to MAX_LABEL_CHARS. */
export const label = (text: string): string =>
  text.length <= MAX_LABEL_CHARS
    ? esc(text)
    : `${esc(text.slice(0, MAX_LABEL_CHARS))}… <span class="note">(${text.length} characters)</span>`;

export const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/u, 'Z');

export function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}

function resultHtml(call: RunCall): string {
  const r = call.result;
  if (r === undefined) return '<span class="waiting">no result yet</span>';
  if (r.error?.code === ERROR_CODES.PAUSED) return '<span class="waiting">awaits a decision</span>';
  if (r.isError) return `<span class="failed">${esc(r.error?.code ?? 'error')}</span> ${label(r.error?.message ?? '')}`;
  return `<code class="value">${jsonHtml(r.value ?? null)}</code>`;
}

function treeHtml(calls: readonly RunCall[], budget: { left: number }): string {
  const items: string[] = [];
  for (const call of calls) {
    if (budget.left <= 0) break;
    budget.left -= 1;
    items.push(
      `<li><code class="tool">${esc(call.name)}</code>(<code class="args">${jsonHtml(call.arguments)}</code>) → ${resultHtml(call)}` +
        `${call.calls.length === 0 ? '' : treeHtml(call.calls, budget)}</li>`,
    );
  }
  return `<ol class="tree">${items.join('')}</ol>`;
}

const countCalls = (calls: readonly RunCall[]): number => calls.reduce((n, c) => n + 1 + countCalls(c.calls), 0);

function pendingHtml(run: DurableRunSummary): string {
  if (run.pending.length === 0)
    return '<p>No call awaits a decision: resuming runs the call that was in flight again (with the same idempotency key).</p>';
  const items = run.pending.map(
    (p) =>
      `<li class="pending" data-call-id="${esc(p.callId)}" data-name="${esc(p.name)}">` +
      `<h3><code class="tool">${esc(p.name)}</code> <span class="title">${label(p.title)}</span></h3>` +
      `<pre class="args">${jsonHtml(p.arguments)}</pre>` +
      `<fieldset class="decision"><legend>Decision for ${esc(p.callId)}</legend>` +
      `<label><input type="radio" name="d:${esc(p.callId)}" value="approve"> Approve</label> ` +
      `<label><input type="radio" name="d:${esc(p.callId)}" value="deny"> Deny</label></fieldset></li>`,
  );
  return `<ol class="pending-calls">${items.join('')}</ol>`;
}

function runHtml({ summary: run, calls }: RunOnPage, now: number): string {
  const total = countCalls(calls);
  const shown = Math.min(total, MAX_TREE_CALLS);
  const expiry = run.expiresAt === undefined ? '' : `, expires ${iso(run.expiresAt)} (in ${age(run.expiresAt - now)})`;
  return (
    `<section class="run" data-run-id="${esc(run.runId)}" data-status="${esc(run.status)}">` +
    `<h2>${label(run.description)}</h2>` +
    `<p class="meta"><span class="status">${esc(run.status)}</span> · run <code>${esc(run.runId)}</code> · agent ` +
    `<code>${esc(run.agent ?? '(global)')}</code>${run.principal === undefined ? '' : ` · for <code>${esc(run.principal)}</code>`}` +
    ` · started ${iso(run.startedAt)} (${age(now - run.startedAt)} ago)${expiry}</p>` +
    `<h3>${run.status === 'paused' ? 'Waiting for your decision' : 'Interrupted: its host stopped mid-run'}</h3>` +
    pendingHtml(run) +
    `<p class="actions"><button type="button" class="send" data-run-id="${esc(run.runId)}" disabled>` +
    `${run.pending.length === 0 ? 'Resume' : 'Send decisions'}</button></p>` +
    `<details class="calls" open><summary>What the program did so far (${total} call${total === 1 ? '' : 's'}, newest first` +
    `${shown < total ? `; the newest ${shown} shown` : ''})</summary>${treeHtml(calls, { left: MAX_TREE_CALLS })}</details>` +
    '</section>'
  );
}

/** The page's plans part, rendered by plans-html.ts: its HTML and what live updates compare. */
export interface PlansPart {
  readonly html: string;
  readonly key: string;
}

/** The runs part of the page (what live updates replace), after the plans waiting for approval. */
export function runsMainHtml(runs: readonly RunOnPage[], now: number, plans?: PlansPart): string {
  const body =
    runs.length === 0
      ? '<p class="empty">No run is waiting: nothing is paused or interrupted.</p>'
      : runs.map((r) => runHtml(r, now)).join('');
  return (
    `<main id="runs" data-key="${esc(runsKey(runs.map((r) => r.summary)))}" data-plans-key="${esc(plans?.key ?? '[]')}">` +
    `${plans?.html ?? ''}${body}</main>`
  );
}

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem 1.5rem;color:#1b1f24;background:#fafafa}
h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.15rem;margin:.2rem 0}h3{font-size:1rem;margin:.8rem 0 .3rem}
.run{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:.8rem 1.1rem;margin:1rem 0}
.meta{color:#57606a;margin:.2rem 0}.status{font-weight:600;color:#9a6700;text-transform:uppercase;font-size:.8rem}
.pending-calls{padding-left:1.2rem}.pending{margin:.6rem 0}
pre.args{background:#f6f8fa;border-radius:6px;padding:.5rem .7rem;overflow:auto;max-height:20rem;white-space:pre-wrap;word-break:break-all}
.tree{padding-left:1.2rem}.tree li{margin:.2rem 0}code.args,code.value{white-space:pre-wrap;word-break:break-all}
.failed{color:#cf222e;font-weight:600}.waiting{color:#9a6700}.note{color:#57606a;font-style:italic}
fieldset.decision{border:0;padding:0;margin:.3rem 0}fieldset.decision legend{position:absolute;left:-9999px}
button{font:inherit;padding:.35rem .9rem;border-radius:6px;border:1px solid #1f883d;background:#1f883d;color:#fff;cursor:pointer}
button[disabled]{opacity:.5;cursor:default}#outcomes p{background:#fff;border-left:4px solid #0969da;padding:.4rem .7rem;margin:.4rem 0}
#outcomes p.error{border-color:#cf222e}#signin[hidden]{display:none}#signin{margin:1rem 0}
input[type=password]{font:inherit;padding:.3rem .5rem;width:24rem;max-width:100%}
.plan{background:#fff;border:1px solid #0969da;border-radius:8px;padding:.8rem 1.1rem;margin:1rem 0}
.plan .status{color:#0969da}.plan-writes{padding-left:1.2rem}.plan-writes li{margin:.5rem 0}
button.reject-plan{border-color:#cf222e;background:#cf222e}pre.code{background:#f6f8fa;border-radius:6px;padding:.5rem .7rem;overflow:auto;max-height:20rem}`;

/** The whole page; `main` is runsMainHtml's output, or the sign-in notice when no token came. */
export function approvalsPageHtml(main: string, nonce: string, signedIn: boolean): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Paused runs · ptc-runtime</title>
<style nonce="${esc(nonce)}">${STYLE}</style></head>
<body><header><h1>Paused runs</h1><p id="state" role="status">${signedIn ? 'Signed in as the operator.' : ''}</p></header>
<div id="signin" hidden><label>Operator token <input type="password" id="token" autocomplete="off" spellcheck="false"></label>
<button type="button" id="signin-button">Sign in</button>
<p class="note">The token stays in this tab (sessionStorage) and is sent only in the Authorization header.</p></div>
${main}
<div id="outcomes" aria-live="polite"></div>
<script nonce="${esc(nonce)}" src="/runs/page.js"></script>
</body></html>`;
}

/** What a browser gets without the token: how to sign in (the page script shows the form). */
export const SIGNED_OUT_MAIN =
  '<main id="runs" data-key=""><p>This page lists the runs waiting for an operator. It needs the operator token ' +
  '(PTC_OPERATOR_TOKEN): sign in with JavaScript on, or send it as <code>Authorization: Bearer &lt;token&gt;</code>.</p></main>';
