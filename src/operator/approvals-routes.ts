// The approvals page's HTTP routes, beside `/mcp` on `ptc serve --http` when the operator
// surface is on: `GET /runs` (the page), `GET /runs/page.js` (its script), `GET /runs.json`
// (the runs in the operator's scope), `POST /runs/<runId>/decisions` (a resume), and for
// whole plans (`planApproval`) `GET /plans.json` (the plans waiting for approval) and
// `POST /plans/<planId>/decision` (`{ "decision": "approve" | "reject" }`), and the undos
// a crash interrupted: `GET /undos.json`, `POST /undos/<planId>/finish`. Every
// route but the page shell and its script needs the operator token in the Authorization
// header — a browser never sends it by itself, which is what keeps other sites from
// acting through an operator's browser (no cookie, no token in a URL).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RUN_RESUME_ERROR_CODES, RunResumeError } from '../errors/run-resume-error.ts';
import { PLAN_ERROR_CODES, PlanError } from '../errors/plan-error.ts';
import type { PlanAwaitingApproval } from '../preview/plan-approval.ts';
import type { ToolRuntime } from '../runtime/create-tool-runtime.ts';
import type { DurableRunSummary, RunsScope } from '../runtime/durable-runs.ts';
import type { RunDecision } from '../journal/run-journal-events.ts';
import { approvalsPageHtml, runsMainHtml, SIGNED_OUT_MAIN, type RunOnPage } from './approvals-html.ts';
import { plansPart } from './plans-html.ts';
import { APPROVALS_SCRIPT } from './approvals-script.ts';

export type ApprovalsRoute =
  | { readonly kind: 'page' }
  | { readonly kind: 'script' }
  | { readonly kind: 'json' }
  | { readonly kind: 'decisions'; readonly runId: string }
  | { readonly kind: 'plans-json' }
  | { readonly kind: 'plan-decision'; readonly planId: string }
  | { readonly kind: 'undos-json' }
  | { readonly kind: 'undo-finish'; readonly planId: string };

export interface ApprovalsContext {
  readonly rt: ToolRuntime;
  /** The operator's runs (the served agent's, narrowed by PTC_OPERATOR_AGENTS). */
  readonly scope: RunsScope;
  /** Whether an Authorization header carries the operator token. */
  readonly isOperator: (authorization: string | undefined) => boolean;
  /** Largest decisions body, in bytes. */
  readonly maxBodyBytes: number;
}

/** Runs the page lists at most (the newest); more are counted, not shown. */
export const MAX_RUNS_ON_PAGE = 100;
/** Longest run id a decisions URL may carry. */
const MAX_RUN_ID_LENGTH = 200;

/** The approvals route a path names, if any. */
export function approvalsRoute(pathname: string): ApprovalsRoute | undefined {
  if (pathname === '/runs') return { kind: 'page' };
  if (pathname === '/runs/page.js') return { kind: 'script' };
  if (pathname === '/runs.json') return { kind: 'json' };
  if (pathname === '/plans.json') return { kind: 'plans-json' };
  if (pathname === '/undos.json') return { kind: 'undos-json' };
  const match = /^\/(runs|plans|undos)\/([^/]+)\/(decisions|decision|finish)$/u.exec(pathname);
  if (match === null) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(match[2]!);
  } catch {
    return undefined;
  }
  if (match[1] === 'runs' && match[3] === 'decisions') return { kind: 'decisions', runId: id };
  if (match[1] === 'plans' && match[3] === 'decision') return { kind: 'plan-decision', planId: id };
  if (match[1] === 'undos' && match[3] === 'finish') return { kind: 'undo-finish', planId: id };
  return undefined;
}

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...SECURITY_HEADERS, ...headers });
  res.end(JSON.stringify(body));
}

const sendError = (res: ServerResponse, status: number, code: string, message: string): void =>
  sendJson(res, status, { error: { code, message } }, status === 401 ? { 'www-authenticate': 'Bearer' } : {});

const NEEDS_TOKEN = 'Unauthorized: send the operator token (PTC_OPERATOR_TOKEN) as Authorization: Bearer <token>';

/** The runs in scope, newest first, each with its call tree (one read of the journal). */
async function runsOnPage(ctx: ApprovalsContext): Promise<RunOnPage[]> {
  const runs = await ctx.rt.runs({ ...ctx.scope, withCalls: true });
  return runs
    .sort((a, b) => b.startedAt - a.startedAt)
    .slice(0, MAX_RUNS_ON_PAGE)
    .map(({ calls, ...summary }) => ({ summary, calls: calls ?? [] }));
}

/** The plans waiting for approval in scope, newest first. */
async function plansInScope(ctx: ApprovalsContext): Promise<PlanAwaitingApproval[]> {
  return (await ctx.rt.plans(ctx.scope)).sort((a, b) => b.createdAt - a.createdAt);
}

const publicRun = (r: DurableRunSummary) => ({
  runId: r.runId,
  status: r.status,
  agent: r.agent ?? null,
  pending: r.pending.map((p) => ({ callId: p.callId, name: p.name, arguments: p.arguments, title: p.title })),
  startedAt: r.startedAt,
  expiresAt: r.expiresAt ?? null,
});

/** Reads a JSON body of at most `max` bytes; undefined (answered) when it is too large. */
async function readBody(req: IncomingMessage, res: ServerResponse, max: number): Promise<string | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    sendError(res, 413, 'INVALID_DECISION', `the body is ${declared} bytes, more than the ${max} allowed`);
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) {
      sendError(res, 413, 'INVALID_DECISION', `the body is more than the ${max} bytes allowed`);
      req.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const STATUS_OF: Readonly<Record<string, number>> = {
  [RUN_RESUME_ERROR_CODES.UNKNOWN_RUN]: 404,
  [RUN_RESUME_ERROR_CODES.RUN_EXPIRED]: 410,
  [RUN_RESUME_ERROR_CODES.RUN_FINISHED]: 409,
  [RUN_RESUME_ERROR_CODES.RUN_BUSY]: 409,
  [RUN_RESUME_ERROR_CODES.NOT_PENDING]: 409,
  [RUN_RESUME_ERROR_CODES.INVALID_DECISION]: 400,
  [RUN_RESUME_ERROR_CODES.NO_JOURNAL]: 501,
};

async function decide(ctx: ApprovalsContext, runId: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!/^application\/json\b/iu.test(req.headers['content-type'] ?? ''))
    return sendError(res, 415, 'INVALID_DECISION', 'send the decisions as Content-Type: application/json');
  if (runId.length === 0 || runId.length > MAX_RUN_ID_LENGTH)
    return sendError(res, 404, RUN_RESUME_ERROR_CODES.UNKNOWN_RUN, `no run with an id of ${runId.length} characters`);
  const text = await readBody(req, res, ctx.maxBodyBytes);
  if (text === undefined) return;
  let decisions: unknown;
  try {
    decisions = JSON.parse(text);
  } catch (error) {
    return sendError(res, 400, 'INVALID_DECISION', `the body is not JSON: ${(error as Error).message}`);
  }
  if (typeof decisions !== 'object' || decisions === null || Array.isArray(decisions))
    return sendError(
      res,
      400,
      'INVALID_DECISION',
      `expected { "<callId>": "approve" | "deny", … }, got ${text.slice(0, 100)}`,
    );
  try {
    const result = await ctx.rt.resume(runId, decisions as Record<string, RunDecision>, ctx.scope);
    sendJson(res, 200, {
      callId: result.callId,
      name: result.name,
      isError: result.isError,
      ...(result.value === undefined ? {} : { value: result.value }),
      ...(result.error === undefined ? {} : { error: result.error }),
    });
  } catch (error) {
    if (error instanceof RunResumeError) return sendError(res, STATUS_OF[error.code] ?? 400, error.code, error.message);
    if (error instanceof TypeError) return sendError(res, 400, 'INVALID_DECISION', error.message);
    throw error;
  }
}

const PLAN_STATUS_OF: Readonly<Record<string, number>> = {
  [PLAN_ERROR_CODES.PLAN_INVALID]: 404,
  [PLAN_ERROR_CODES.PLAN_EXPIRED]: 410,
  [PLAN_ERROR_CODES.PLAN_USED]: 409,
  [PLAN_ERROR_CODES.PLAN_DECIDED]: 409,
};

/** Approves or rejects a whole plan: `{ "decision": "approve" | "reject" }`. */
async function decidePlan(
  ctx: ApprovalsContext,
  planId: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (!/^application\/json\b/iu.test(req.headers['content-type'] ?? ''))
    return sendError(res, 415, 'INVALID_DECISION', 'send the decision as Content-Type: application/json');
  if (planId.length === 0 || planId.length > MAX_RUN_ID_LENGTH)
    return sendError(res, 404, PLAN_ERROR_CODES.PLAN_INVALID, `no plan with an id of ${planId.length} characters`);
  const text = await readBody(req, res, ctx.maxBodyBytes);
  if (text === undefined) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return sendError(res, 400, 'INVALID_DECISION', `the body is not JSON: ${(error as Error).message}`);
  }
  const decision = (body as { decision?: unknown } | null)?.decision;
  if (decision !== 'approve' && decision !== 'reject')
    return sendError(
      res,
      400,
      'INVALID_DECISION',
      `expected { "decision": "approve" | "reject" }, got ${text.slice(0, 100)}`,
    );
  try {
    sendJson(res, 200, await ctx.rt.decidePlan(planId, decision, ctx.scope));
  } catch (error) {
    if (error instanceof PlanError) return sendError(res, PLAN_STATUS_OF[error.code] ?? 400, error.code, error.message);
    throw error;
  }
}

const UNDO_STATUS_OF: Readonly<Record<string, number>> = {
  [PLAN_ERROR_CODES.UNDO_UNKNOWN]: 404,
  [PLAN_ERROR_CODES.UNDO_BUSY]: 409,
  [PLAN_ERROR_CODES.UNDO_TOOL_MISSING]: 409,
};

/** Finishes an interrupted undo on this server: what the commit applied, undid and did not undo. */
async function finishUndo(
  ctx: ApprovalsContext,
  planId: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (!/^application\/json\b/iu.test(req.headers['content-type'] ?? ''))
    return sendError(res, 415, 'INVALID_DECISION', 'send the request as Content-Type: application/json');
  if (planId.length === 0 || planId.length > MAX_RUN_ID_LENGTH)
    return sendError(res, 404, PLAN_ERROR_CODES.UNDO_UNKNOWN, `no undo with an id of ${planId.length} characters`);
  // The body says nothing (the URL names the undo); it is read, bounded, only to be done with it.
  if ((await readBody(req, res, ctx.maxBodyBytes)) === undefined) return;
  try {
    // An undo's plan id the store's claims refuse is not one this runtime made.
    sendJson(res, 200, await ctx.rt.resumeUndo(planId, ctx.scope));
  } catch (error) {
    if (error instanceof PlanError) return sendError(res, UNDO_STATUS_OF[error.code] ?? 400, error.code, error.message);
    if (error instanceof TypeError) return sendError(res, 404, PLAN_ERROR_CODES.UNDO_UNKNOWN, error.message);
    throw error;
  }
}

/** Answers a request for one of the approvals routes (Host and Origin already checked). */
export async function serveApprovals(
  ctx: ApprovalsContext,
  route: ApprovalsRoute,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method =
    route.kind === 'decisions' || route.kind === 'plan-decision' || route.kind === 'undo-finish' ? 'POST' : 'GET';
  if (req.method !== method && !(method === 'GET' && req.method === 'HEAD')) {
    res.setHeader('allow', method === 'GET' ? 'GET, HEAD' : 'POST');
    return sendError(res, 405, 'METHOD_NOT_ALLOWED', `${req.method ?? ''} is not allowed here; use ${method}`);
  }
  if (route.kind === 'script') {
    res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', ...SECURITY_HEADERS });
    res.end(APPROVALS_SCRIPT);
    return;
  }
  const authorization = req.headers.authorization;
  const operator = ctx.isOperator(authorization);
  if (route.kind === 'page') {
    const nonce = randomBytes(16).toString('base64');
    const main = operator
      ? runsMainHtml(
          await runsOnPage(ctx),
          Date.now(),
          plansPart(await plansInScope(ctx), await ctx.rt.undos(ctx.scope), Date.now()),
        )
      : SIGNED_OUT_MAIN;
    res.writeHead(operator || authorization === undefined ? 200 : 401, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; script-src 'self'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
      ...SECURITY_HEADERS,
    });
    res.end(req.method === 'HEAD' ? undefined : approvalsPageHtml(main, nonce, operator));
    return;
  }
  if (!operator) return sendError(res, 401, 'UNAUTHORIZED', NEEDS_TOKEN);
  if (route.kind === 'json') {
    const runs = (await ctx.rt.runs(ctx.scope)).sort((a, b) => b.startedAt - a.startedAt);
    return sendJson(res, 200, { runs: runs.map(publicRun) });
  }
  if (route.kind === 'plans-json') return sendJson(res, 200, { plans: await plansInScope(ctx) });
  if (route.kind === 'plan-decision') return decidePlan(ctx, route.planId, req, res);
  if (route.kind === 'undos-json') return sendJson(res, 200, { undos: await ctx.rt.undos(ctx.scope) });
  if (route.kind === 'undo-finish') return finishUndo(ctx, route.planId, req, res);
  return decide(ctx, route.runId, req, res);
}
