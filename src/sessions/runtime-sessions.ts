// Sessions of one runtime: run_code opens one per program (a new one, or the one the model
// named), holds it while the program runs, and saves what the program left on `state`.
// An unknown, expired or other agent's id fails loudly (SESSION_EXPIRED), never as a
// silent fresh start; a session another program is running on is refused (SESSION_BUSY).
// Operators list, show and delete sessions through `rt.sessions`.
import { randomUUID } from 'node:crypto';
import { newSessionId } from './session-id.ts';
import type { StateOutcome } from '../../sandbox/types.ts';
import { ERROR_CODES } from '../errors/error-codes.ts';
import { ToolRuntimeError } from '../errors/tool-runtime-error.ts';
import { createMemorySessionStore } from './memory-session-store.ts';
import type { SessionRecord, SessionStore, SessionSummary } from './session-store.ts';

/** Whose a session is: the agent (null: the global scope) and the principal (null: none named) that created it. */
export interface SessionOwner {
  readonly agent: string | null;
  readonly principal: string | null;
}

const sameOwner = (record: SessionRecord, owner: SessionOwner): boolean =>
  record.agent === owner.agent && record.principal === owner.principal;

/** `createToolRuntime({ sessions })`. */
export interface SessionsOptions {
  /** Idle time after which a session expires; every program on it renews it. @default 86400000 (24 h) */
  readonly ttlMs?: number;
  /** Bytes (UTF-8) of serialized state one session may hold; over it a save is refused. @default 8388608 (8 MiB) */
  readonly maxBytes?: number;
  /** Where sessions live. Default: the journal's store (`journal.sessions`), else this process's memory. */
  readonly store?: SessionStore;
  /**
   * How long a program naming a session another program runs on waits for it before it
   * is refused SESSION_BUSY (at most 600000). @default 0 (refused at once)
   */
  readonly busyWaitMs?: number;
}

/** `value.session` of a run_code result: the session to pass next time, and what it holds. */
export type RunSessionValue = {
  readonly id: string;
  /** ms since the epoch: unused until then, the session is gone. */
  readonly expiresAt: number;
  /** Bytes of serialized state the session holds now. */
  readonly bytes: number;
  /** Why this program's `state` was not saved (the session kept its previous state). */
  readonly notSaved?: string;
};

/** What a durable run records of its session at its start, so a re-run reads the same state. */
export interface RecordedSession {
  readonly id: string;
  /** The version the run read (0: a new session). */
  readonly version: number;
  readonly state: string;
}

/** Operator access (`rt.sessions`): every agent's sessions. */
export interface SessionsApi {
  /** Live sessions, oldest first, without their state. */
  list(): Promise<SessionSummary[]>;
  /** One session with its state text, if it is live. */
  get(id: string): Promise<SessionRecord | undefined>;
  /** Removes a session at once; false when there was none. */
  delete(id: string): Promise<boolean>;
  /**
   * Starts an empty session for an agent (default: the global scope) and principal: its
   * id goes with the tool calls of a native-mode conversation (`rt.execute({ session })`,
   * read and written by the tools as `exec.session`) and to run_code as `session`.
   */
  create(owner?: {
    readonly agent?: string;
    readonly principal?: string;
  }): Promise<{ readonly id: string; readonly expiresAt: number }>;
}

export const DEFAULT_SESSION_TTL_MS = 24 * 3_600_000;
export const DEFAULT_SESSION_MAX_BYTES = 8 * 1_048_576;
/** Longest `busyWaitMs`: a program never waits longer than this for a busy session. */
export const MAX_SESSION_BUSY_WAIT_MS = 600_000;
/** Longest pause between two looks at a busy session. */
const BUSY_POLL_MAX_MS = 250;
/** Longest id the model may pass; longer ones are unknown without a store read. */
const MAX_ID_LENGTH = 256;

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new TypeError(`createToolRuntime: sessions.${name} must be a positive integer, got ${String(value)}`);
  return value;
}

function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms} ms`;
}

/** One program's hold on its session: save what it left, or let go. */
export class OpenSession {
  readonly recorded: RecordedSession;
  readonly #sessions: RuntimeSessions;
  readonly #scope: SessionOwner;
  readonly #owner: string;
  readonly #createdAt: number;
  /** The expiry and size the session has until a save changes them. */
  #current: { readonly expiresAt: number; readonly bytes: number };

  constructor(sessions: RuntimeSessions, record: SessionRecord, owner: string) {
    this.#sessions = sessions;
    this.#scope = { agent: record.agent, principal: record.principal };
    this.#owner = owner;
    this.#createdAt = record.createdAt;
    this.recorded = { id: record.id, version: record.version, state: record.version === 0 ? '' : record.state };
    this.#current = { expiresAt: record.expiresAt, bytes: record.bytes };
  }

  get id(): string {
    return this.recorded.id;
  }

  /** Saves what a successful program left (or, refused, keeps the previous state and says why). */
  async save(outcome: StateOutcome | undefined): Promise<RunSessionValue> {
    const refused = outcome === undefined ? 'the sandbox reported no state' : outcome.ok ? undefined : outcome.message;
    // A new session exists from its first successful program on, even when its state was refused.
    if (refused !== undefined && this.recorded.version > 0) return this.#value(refused);
    const text = refused === undefined && outcome?.ok ? outcome.text : '{}';
    const bytes = refused === undefined && outcome?.ok ? outcome.bytes : 2;
    const now = Date.now();
    const record: SessionRecord = {
      id: this.id,
      agent: this.#scope.agent,
      principal: this.#scope.principal,
      state: text,
      bytes,
      version: this.recorded.version + 1,
      createdAt: this.#createdAt,
      updatedAt: now,
      expiresAt: now + this.#sessions.ttlMs,
    };
    let saved: boolean;
    try {
      saved = await this.#sessions.store.saveSession(record, this.#owner, now);
    } catch (error) {
      return this.#value(`the session store failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!saved) {
      return this.#value(
        'the session changed, expired or was deleted while this program ran (another program saved first), so this ' +
          "program's state was not saved; the session keeps the other's",
      );
    }
    this.#current = { expiresAt: record.expiresAt, bytes };
    return this.#value(refused);
  }

  #value(notSaved: string | undefined): RunSessionValue {
    const value = { id: this.id, expiresAt: this.#current.expiresAt, bytes: this.#current.bytes };
    return notSaved === undefined ? value : { ...value, notSaved };
  }

  async release(): Promise<void> {
    if (this.recorded.version === 0) return;
    await this.#sessions.store.releaseSession(this.id, this.#owner).catch(() => {});
  }
}

export class RuntimeSessions {
  readonly ttlMs: number;
  readonly maxBytes: number;
  readonly store: SessionStore;
  readonly busyWaitMs: number;

  constructor(options: SessionsOptions, store: SessionStore) {
    const wait = options.busyWaitMs ?? 0;
    if (typeof wait !== 'number' || !Number.isSafeInteger(wait) || wait < 0 || wait > MAX_SESSION_BUSY_WAIT_MS)
      throw new TypeError(
        `createToolRuntime: sessions.busyWaitMs must be an integer from 0 to ${MAX_SESSION_BUSY_WAIT_MS}, got ${String(wait)}`,
      );
    this.busyWaitMs = wait;
    this.ttlMs = positive(options.ttlMs, DEFAULT_SESSION_TTL_MS, 'ttlMs');
    this.maxBytes = positive(options.maxBytes, DEFAULT_SESSION_MAX_BYTES, 'maxBytes');
    if (this.maxBytes < 2) throw new TypeError('createToolRuntime: sessions.maxBytes must be at least 2');
    this.store = store;
  }

  /**
   * The session a program runs on: a new one (no id), or the named one held for it for
   * `holdMs` at most. Throws SESSION_EXPIRED (unknown, expired, another agent's) or SESSION_BUSY.
   */
  async open(id: string | undefined, scope: SessionOwner, holdMs: number): Promise<OpenSession> {
    const now = Date.now();
    const owner = randomUUID();
    if (id === undefined) {
      const fresh: SessionRecord = {
        id: newSessionId(),
        agent: scope.agent,
        principal: scope.principal,
        state: '{}',
        bytes: 2,
        version: 0,
        createdAt: now,
        updatedAt: now,
        expiresAt: now + this.ttlMs,
      };
      return new OpenSession(this, fresh, owner);
    }
    if (id.length === 0 || id.length > MAX_ID_LENGTH) throw this.expired(id);
    const lease = (at: number) => this.store.leaseSession(id, { owner, until: at + holdMs }, at + this.ttlMs, at);
    let outcome = await lease(now);
    const deadline = now + this.busyWaitMs;
    let pause = 10;
    while (outcome.kind === 'busy') {
      // Another agent's session is unknown to this one, busy or not (and it does not wait for it).
      const record = await this.store.getSession(id, Date.now());
      if (record === undefined || !sameOwner(record, scope)) throw this.expired(id);
      const left = deadline - Date.now();
      if (left <= 0) {
        const waited = this.busyWaitMs === 0 ? '' : `, still after waiting ${this.busyWaitMs} ms (busyWaitMs)`;
        throw new ToolRuntimeError(
          ERROR_CODES.SESSION_BUSY,
          `session "${id}" is in use by another program${waited} (held until ${new Date(outcome.lease.until).toISOString()} at most): ` +
            'this program did not run. Wait for that program to finish, then run this one again with the same session.',
          { session: id },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
      pause = Math.min(pause * 2, BUSY_POLL_MAX_MS);
      outcome = await lease(Date.now());
    }
    if (outcome.kind === 'missing') throw this.expired(id);
    if (!sameOwner(outcome.record, scope)) {
      await this.store.releaseSession(id, owner).catch(() => {});
      throw this.expired(id);
    }
    return new OpenSession(this, outcome.record, owner);
  }

  /**
   * A resumed durable run's session: it reads the state it started with, and saves over
   * the version it read (refused if another program saved in between).
   */
  async reopen(recorded: RecordedSession, scope: SessionOwner, holdMs: number): Promise<OpenSession> {
    const now = Date.now();
    const owner = randomUUID();
    const base: SessionRecord = {
      id: recorded.id,
      agent: scope.agent,
      principal: scope.principal,
      state: recorded.state === '' ? '{}' : recorded.state,
      bytes: Buffer.byteLength(recorded.state),
      version: recorded.version,
      createdAt: now,
      updatedAt: now,
      expiresAt: now + this.ttlMs,
    };
    if (recorded.version > 0) {
      const outcome = await this.store.leaseSession(recorded.id, { owner, until: now + holdMs }, now + this.ttlMs, now);
      if (outcome.kind === 'leased') {
        const { createdAt, agent, principal } = outcome.record;
        return new OpenSession(this, { ...base, createdAt, agent, principal }, owner);
      }
    }
    return new OpenSession(this, base, owner);
  }

  expired(id: string): ToolRuntimeError {
    const shown = id.length > 64 ? `${id.slice(0, 64)}…` : id;
    return new ToolRuntimeError(
      ERROR_CODES.SESSION_EXPIRED,
      `session "${shown}" is unknown or has expired (a session ends after ${duration(this.ttlMs)} without a program, ` +
        'or when an operator deletes it): everything its programs kept in `state` is gone. Start a new session: call ' +
        'run_code without `session`, and fetch again the data the program needs.',
      { session: shown },
    );
  }

  api(): SessionsApi {
    return {
      list: () => this.store.listSessions(Date.now()),
      get: (id) => this.store.getSession(id, Date.now()),
      delete: (id) => this.store.deleteSession(id),
      create: async (owner = {}) => {
        const open = await this.open(undefined, { agent: owner.agent ?? null, principal: owner.principal ?? null }, 1);
        const value = await open.save({ ok: true, text: '{}', bytes: 2 });
        if (value.notSaved !== undefined) throw new Error(`sessions.create: ${value.notSaved}`);
        return { id: value.id, expiresAt: value.expiresAt };
      },
    };
  }
}

/** The line a run_code result ends with when it ran on a session. */
export function sessionLine(session: RunSessionValue): string {
  const where = `session "${session.id}"`;
  if (session.notSaved !== undefined) return `[${where}: state NOT saved: ${session.notSaved}]`;
  return `[${where}: state saved, ${session.bytes} bytes]`;
}

/** The runtime's sessions from its `sessions` option (undefined: off), in the given store, the journal's or memory. */
export function createRuntimeSessions(
  option: SessionsOptions | boolean | undefined,
  journalStore: SessionStore | undefined,
): RuntimeSessions | undefined {
  if (option === undefined || option === false) return undefined;
  if (option !== true && (typeof option !== 'object' || option === null))
    throw new TypeError(
      `createToolRuntime: sessions must be true, false or options such as { ttlMs, maxBytes }, got ${String(option)}`,
    );
  const options = option === true ? {} : option;
  return new RuntimeSessions(options, options.store ?? journalStore ?? createMemorySessionStore());
}

/** `rt.sessions` of a runtime without sessions: every call says how to turn them on. */
export function sessionsOff(): SessionsApi {
  const off = (): never => {
    throw new TypeError('sessions are off on this runtime: createToolRuntime({ sessions: true })');
  };
  return { list: off, get: off, delete: off, create: off };
}
