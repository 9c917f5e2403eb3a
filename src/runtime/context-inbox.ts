// The next step's inbox of one conversation. A turn commits its results first; its
// contexts (`additionalContexts`, in model order) then wait here, and only when the next
// request is admitted (`admit()`, just before the app sends the model its next request)
// do they become user messages — durable `user/message` events, written ahead of that
// request like a `tool/call` is written ahead of its body. So a replay shows what the
// model was given and when, and a restarted process neither loses a context that was
// never admitted (`recover`) nor admits one twice.
import { randomUUID } from 'node:crypto';
import type { ContextMessage, ToolResult } from '../pipeline/tool-result.ts';
import type { Journal, JournalEvent } from '../journal/journal.ts';
import { isJournalEvent } from '../journal/parse-journal.ts';
import { SchedulerError } from '../scheduler/scheduler-error.ts';
import { USER_MESSAGE, type UserMessageEvent } from '../journal/user-message-event.ts';

export interface ContextInboxOptions {
  /** The conversation's id, written with every admitted message. Default: a random UUID. */
  readonly id?: string;
}

/** One conversation's contexts between the turn that deferred them and the request that admits them. */
export interface ContextInbox {
  readonly id: string;
  /** Contexts waiting for the next request, in the order they will be admitted. */
  pending(): readonly ContextMessage[];
  /**
   * Queues the contexts of committed results, in the order given (executeTurn does it
   * for a turn run with `{ inbox }`, after all of its results). A context already queued
   * or admitted by this inbox is not queued again. Returns how many were queued.
   */
  enqueue(results: readonly ToolResult[]): number;
  /**
   * The next request is admitted: every waiting context is journaled as a `user/message`
   * (durable before this resolves; one append for all of them) and returned, in order, for
   * the app to send; the inbox is then empty. If the journal cannot be written it rejects
   * (SchedulerError SCHEDULER_FAILURE) and the contexts stay queued: nothing is lost.
   * Without a journal nothing is written.
   */
  admit(): Promise<readonly ContextMessage[]>;
  /**
   * After a restart: queues again the contexts of these calls (the last turn's callIds,
   * in model order) whose results the journal holds and that no `user/message` admitted
   * yet. Returns how many were queued. Needs a runtime with a journal.
   */
  recover(callIds: readonly string[]): Promise<number>;
}

interface Waiting {
  readonly callId: string;
  readonly name: string;
  readonly index: number;
  readonly message: ContextMessage;
}

const inboxes = new WeakSet<ContextInbox>();
const noop = (): void => {};
const keyOf = (callId: string, index: number): string => `${callId}\u0000${index}`;

/** Whether `value` was made by `rt.contextInbox()`. */
export function isContextInbox(value: unknown): value is ContextInbox {
  return typeof value === 'object' && value !== null && inboxes.has(value as ContextInbox);
}

export function createContextInbox(journal: Journal | undefined, options: ContextInboxOptions = {}): ContextInbox {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('contextInbox: options must be an object such as { id: "conversation-1" }');
  const id = options.id ?? randomUUID();
  if (typeof id !== 'string' || id.length === 0 || id.length > 256)
    throw new TypeError(`contextInbox: id must be a non-empty string of at most 256 characters, got ${String(id)}`);
  const queue: Waiting[] = [];
  // Contexts queued or admitted by this inbox, so that the same result queued twice is
  // admitted once. One entry per context; a conversation's own length bounds it.
  const seen = new Set<string>();
  let admitting: Promise<unknown> = Promise.resolve();

  const queueContexts = (callId: string, name: string, contexts: readonly ContextMessage[], skip: Set<string>) => {
    let queued = 0;
    contexts.forEach((message, index) => {
      const key = keyOf(callId, index);
      if (seen.has(key) || skip.has(key)) return;
      seen.add(key);
      queue.push({ callId, name, index, message });
      queued += 1;
    });
    return queued;
  };

  const inbox: ContextInbox = Object.freeze({
    id,
    pending: () => Object.freeze(queue.map((w) => w.message)),
    enqueue(results: readonly ToolResult[]) {
      if (!Array.isArray(results)) throw new TypeError('contextInbox.enqueue: expected the results of a turn');
      // Checked whole before anything is queued: a context the journal would refuse must
      // not sit at the head of the queue and fail every later admission.
      (results as readonly ToolResult[]).forEach((result, i) => {
        (result?.additionalContexts ?? []).forEach((message, index) => {
          const event = {
            type: USER_MESSAGE,
            callId: result.callId,
            name: result.name,
            inbox: id,
            index,
            message,
            at: 0,
          };
          if (!isJournalEvent(event))
            throw new TypeError(
              `contextInbox.enqueue: results[${i}].additionalContexts[${index}] is not a user message ({ role: 'user', content: text or image blocks }) of a result with a callId and name`,
            );
        });
      });
      let queued = 0;
      for (const result of results as readonly ToolResult[]) {
        const contexts = result?.additionalContexts;
        if (contexts !== undefined && contexts.length > 0)
          queued += queueContexts(result.callId, result.name, contexts, new Set());
      }
      return queued;
    },
    admit() {
      const run = admitting.then(async () => {
        const batch = queue.splice(0);
        if (batch.length === 0 || journal === undefined) return Object.freeze(batch.map((w) => w.message));
        const at = Date.now();
        const events: UserMessageEvent[] = batch.map((w) => ({
          type: USER_MESSAGE,
          callId: w.callId,
          name: w.name,
          inbox: id,
          index: w.index,
          message: w.message,
          at,
        }));
        try {
          await journal.append(events);
        } catch (error) {
          // Not admitted: they wait for the next attempt, ahead of anything queued since.
          queue.unshift(...batch);
          throw SchedulerError.failure(error);
        }
        return Object.freeze(batch.map((w) => w.message));
      });
      admitting = run.then(noop, noop);
      return run;
    },
    async recover(callIds: readonly string[]) {
      if (journal === undefined)
        throw new TypeError('contextInbox.recover: needs a runtime with a journal (createToolRuntime({ journal }))');
      if (!Array.isArray(callIds) || !callIds.every((c) => typeof c === 'string' && c.length > 0))
        throw new TypeError('contextInbox.recover: expected the callIds of the last turn (non-empty strings)');
      let queued = 0;
      const journalEvents = await eventsOf(journal, callIds);
      for (const callId of callIds as readonly string[]) {
        const events = journalEvents(callId);
        let result: ToolResult | undefined;
        const admitted = new Set<string>();
        for (const event of events) {
          if (event.callId !== callId) continue;
          if (event.type === 'tool/result') result = event.result;
          else if (event.type === USER_MESSAGE) admitted.add(keyOf(callId, event.index));
        }
        const contexts = result?.additionalContexts;
        if (result !== undefined && contexts !== undefined)
          queued += queueContexts(callId, result.name, contexts, admitted);
      }
      return queued;
    },
  });
  inboxes.add(inbox);
  return inbox;
}

/** The calls' events: by a store's query when it has one (SQLite, PostgreSQL), else one read of the journal. */
async function eventsOf(
  journal: Journal,
  callIds: readonly string[],
): Promise<(callId: string) => readonly JournalEvent[]> {
  const queryable = journal as Journal & {
    query?: (q: { readonly rootCallId: string }) => Promise<readonly { readonly event: JournalEvent }[]>;
  };
  if (typeof queryable.query === 'function') {
    const byCall = new Map<string, readonly JournalEvent[]>();
    for (const callId of callIds)
      byCall.set(
        callId,
        (await queryable.query({ rootCallId: callId })).map((entry) => entry.event),
      );
    // A call that is not a root (a hosted program's call runs nested under the program) is found by reading.
    const found = (callId: string): boolean =>
      byCall.get(callId)!.some((e) => e.type === 'tool/result' && e.callId === callId);
    if (callIds.every(found)) return (callId) => byCall.get(callId) ?? [];
  }
  const { events } = await journal.read();
  return () => events;
}
