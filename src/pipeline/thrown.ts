// Reads a thrown value defensively: it may be a Proxy, have throwing getters, or not be an Error.
import { trySnapshotJson, type JsonValue } from '../json/json-value.ts';

export interface ThrownInfo {
  readonly message: string;
  readonly code: string | undefined;
  /** A structured `info` object carried by the error (kept only if it is plain JSON). */
  readonly info: { readonly [key: string]: JsonValue } | undefined;
}

/** Longest message kept from a thrown value (the model-visible text limit). */
const MAX_MESSAGE = 64 * 1024;

export function describeThrown(error: unknown): ThrownInfo {
  let message = 'unknown error';
  let code: string | undefined;
  let info: ThrownInfo['info'];
  try {
    if (error instanceof Error || (typeof error === 'object' && error !== null)) {
      const m: unknown = (error as { message?: unknown }).message;
      message = typeof m === 'string' && m.length > 0 ? m : String(error);
      const c: unknown = (error as { code?: unknown }).code;
      if (typeof c === 'string' && c.length > 0) code = c;
      const i: unknown = (error as { info?: unknown }).info;
      if (i !== undefined) {
        const snap = trySnapshotJson(i, 'info');
        if (snap.ok && typeof snap.value === 'object' && snap.value !== null && !Array.isArray(snap.value)) {
          info = snap.value as { readonly [key: string]: JsonValue };
        }
      }
    } else {
      message = String(error);
    }
  } catch {
    message = 'unreadable thrown value';
  }
  const kept = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}… [truncated]` : message;
  return { message: kept, code, info };
}
