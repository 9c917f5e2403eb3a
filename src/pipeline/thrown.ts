// Reads a thrown value defensively: it may be a Proxy, have throwing getters, or not be an Error.
export interface ThrownInfo {
  readonly message: string;
  readonly code: string | undefined;
}

export function describeThrown(error: unknown): ThrownInfo {
  let message = 'unknown error';
  let code: string | undefined;
  try {
    if (error instanceof Error || (typeof error === 'object' && error !== null)) {
      const m: unknown = (error as { message?: unknown }).message;
      message = typeof m === 'string' && m.length > 0 ? m : String(error);
      const c: unknown = (error as { code?: unknown }).code;
      if (typeof c === 'string' && c.length > 0) code = c;
    } else {
      message = String(error);
    }
  } catch {
    message = 'unreadable thrown value';
  }
  return { message: message.length > 4000 ? `${message.slice(0, 4000)}…` : message, code };
}
