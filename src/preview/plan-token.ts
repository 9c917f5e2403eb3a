// The plan token: what a commit presents. Its payload names the plan and binds it to the
// agent and principal it was previewed for, the program text, the plan's digest and an
// expiry; an HMAC-SHA256 over the payload (key: PTC_PLAN_KEY, else the runtime's stored
// key) makes a forged or changed token fail before anything is looked up.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { PLAN_ERROR_CODES, PlanError } from '../errors/plan-error.ts';

/** The environment variable that holds the key plan tokens are sealed with. */
export const PLAN_KEY_ENV = 'PTC_PLAN_KEY';
/** Shortest key accepted, in characters. */
export const MIN_PLAN_KEY_LENGTH = 32;
/** Longest token read; anything longer is refused unread. */
export const MAX_PLAN_TOKEN_LENGTH = 4096;

const PREFIX = 'ptcplan1';

/** What a token says (sealed). */
export interface PlanTokenPayload {
  readonly planId: string;
  readonly agent: string | null;
  readonly principal: string | null;
  /** programDigest(description, code). */
  readonly program: string;
  /** planDigest(record). */
  readonly plan: string;
  readonly expiresAt: number;
}

/** The key from the environment, checked; undefined when the variable is not set. */
export function planKeyFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = env[PLAN_KEY_ENV];
  if (key === undefined || key === '') return undefined;
  if (key.length < MIN_PLAN_KEY_LENGTH)
    throw new TypeError(
      `${PLAN_KEY_ENV} is ${key.length} characters; a plan key needs at least ${MIN_PLAN_KEY_LENGTH} (e.g. openssl rand -hex 32)`,
    );
  return key;
}

const mac = (key: string, body: string): Buffer => createHmac('sha256', key).update(`${PREFIX}.${body}`).digest();

/** `ptcplan1.<payload>.<hmac>`, both base64url. */
export function sealPlanToken(key: string, payload: PlanTokenPayload): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${PREFIX}.${body}.${mac(key, body).toString('base64url')}`;
}

const invalid = (why: string): PlanError =>
  new PlanError(
    PLAN_ERROR_CODES.PLAN_INVALID,
    `the plan token was refused: ${why}. Preview the program again (rt.preview) and commit the token it gives.`,
  );

/** The payload of a token this key sealed and nobody changed; PLAN_INVALID otherwise. Expiry and binding are the caller's. */
export function openPlanToken(key: string, token: unknown): PlanTokenPayload {
  if (typeof token !== 'string') throw invalid(`a token is a string, got ${token === null ? 'null' : typeof token}`);
  if (token.length > MAX_PLAN_TOKEN_LENGTH)
    throw invalid(`it is ${token.length} characters, longer than any token (${MAX_PLAN_TOKEN_LENGTH})`);
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX) throw invalid(`it is not a plan token (${PREFIX}.<payload>.<seal>)`);
  const [, body, seal] = parts as [string, string, string];
  const given = Buffer.from(seal, 'base64url');
  const expected = mac(key, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw invalid('its seal does not match (it was changed, or sealed with another key)');
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw invalid('its payload is not JSON');
  }
  const p = payload as Record<string, unknown>;
  const nullableString = (v: unknown): boolean => v === null || typeof v === 'string';
  if (
    typeof p !== 'object' ||
    p === null ||
    typeof p.planId !== 'string' ||
    !nullableString(p.agent) ||
    !nullableString(p.principal) ||
    typeof p.program !== 'string' ||
    typeof p.plan !== 'string' ||
    typeof p.expiresAt !== 'number'
  )
    throw invalid('its payload is not a plan');
  return p as unknown as PlanTokenPayload;
}
