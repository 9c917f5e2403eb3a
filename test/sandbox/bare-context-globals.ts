// The own global properties of a bare context of the isolated-vm this process loads, read
// at test time: the baseline a guest global is compared with. Each V8 adds intrinsics
// (Node 24 brought DisposableStack, SuppressedError, Float16Array …), so a written-down
// list would hold on one Node only. The sandbox process is forked from the same node
// binary, so it runs the same V8.
import ivm from 'isolated-vm';

export interface ContextGlobals {
  readonly names: readonly string[];
  readonly symbols: readonly string[];
}

let cached: ContextGlobals | undefined;

export function bareContextGlobals(): ContextGlobals {
  if (cached) return cached;
  const isolate = new ivm.Isolate({ memoryLimit: 16 });
  try {
    const context = isolate.createContextSync();
    const json = context.evalSync(
      'JSON.stringify({ names: Object.getOwnPropertyNames(globalThis), symbols: Object.getOwnPropertySymbols(globalThis).map(String) })',
    ) as string;
    cached = JSON.parse(json) as ContextGlobals;
    return cached;
  } finally {
    isolate.dispose();
  }
}

/** The web-standard globals the guest offers (sandbox/guest/web-globals.ts, docs/guest-globals.md). */
export const WEB_GLOBALS: readonly string[] = [
  // Node 26 has QuotaExceededError as a class of its own; the guest follows the Node line.
  ...(Number(process.versions.node.split('.')[0]) >= 26 ? ['QuotaExceededError'] : []),
  'AbortController',
  'AbortSignal',
  'Crypto',
  'DOMException',
  'Event',
  'EventTarget',
  'Performance',
  'SubtleCrypto',
  'TextDecoder',
  'TextEncoder',
  'URL',
  'URLSearchParams',
  'atob',
  'btoa',
  'clearInterval',
  'clearTimeout',
  'crypto',
  'performance',
  'queueMicrotask',
  'setInterval',
  'setTimeout',
  'structuredClone',
];

/** What the sandbox adds to the global, exactly, sorted (console replaces V8's own where V8 has one). */
export const SANDBOX_GLOBALS: readonly string[] = [...WEB_GLOBALS, 'ToolCallError', 'console', 'tools'].sort();

/**
 * The names of `guestNames` that are not intrinsics of a bare context, sorted. V8's own
 * `console` counts as not intrinsic: the guest must carry the sandbox's console instead.
 */
export function namesBeyondIntrinsics(guestNames: readonly string[]): string[] {
  const intrinsics = new Set(bareContextGlobals().names.filter((name) => !SANDBOX_GLOBALS.includes(name)));
  return guestNames.filter((name) => !intrinsics.has(name)).sort();
}
