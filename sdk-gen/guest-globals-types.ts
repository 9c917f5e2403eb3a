/**
 * Declarations of the globals a program's sandbox offers beyond lib ES2023 (see
 * docs/guest-globals.md): the console, and the web-standard globals of
 * sandbox/guest/web-globals.ts, typed as lib.dom types them but only as far as the
 * sandbox has them (no fetch, no process, no require: those stay unknown names, so a
 * program that uses them fails `ptc check` before it runs). The type checker reads them;
 * the model is only told which exist (SDK_PREAMBLE), as it knows these APIs already.
 */
export const GUEST_GLOBALS_DECLARATIONS = `declare var console: {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  debug(...args: unknown[]): void;
};
interface Timeout { ref(): this; unref(): this; hasRef(): boolean; refresh(): this; close(): this; [Symbol.toPrimitive](): number; }
declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, ms?: number, ...args: A): Timeout;
declare function setInterval<A extends unknown[]>(callback: (...args: A) => void, ms?: number, ...args: A): Timeout;
declare function clearTimeout(timeout: Timeout | string | number | undefined | null): void;
declare function clearInterval(timeout: Timeout | string | number | undefined | null): void;
declare function queueMicrotask(callback: () => void): void;
declare function structuredClone<T = any>(value: T, options?: { transfer?: ArrayBuffer[] }): T;
declare function atob(data: string): string;
declare function btoa(data: string): string;
type BufferSource = ArrayBufferView | ArrayBuffer;
declare class DOMException extends Error {
  constructor(message?: string, options?: string | { name?: string; cause?: unknown });
  readonly name: string;
  readonly message: string;
  readonly code: number;
  static readonly INDEX_SIZE_ERR: 1; static readonly NOT_FOUND_ERR: 8; static readonly NOT_SUPPORTED_ERR: 9;
  static readonly INVALID_STATE_ERR: 11; static readonly SYNTAX_ERR: 12; static readonly ABORT_ERR: 20;
  static readonly QUOTA_EXCEEDED_ERR: 22; static readonly TIMEOUT_ERR: 23; static readonly DATA_CLONE_ERR: 25;
}
interface EventInit { bubbles?: boolean; cancelable?: boolean; composed?: boolean; }
declare class Event {
  constructor(type: string, eventInitDict?: EventInit);
  readonly type: string;
  readonly target: EventTarget | null;
  readonly currentTarget: EventTarget | null;
  readonly eventPhase: number;
  readonly bubbles: boolean;
  readonly cancelable: boolean;
  readonly composed: boolean;
  readonly defaultPrevented: boolean;
  readonly isTrusted: boolean;
  readonly timeStamp: number;
  cancelBubble: boolean;
  returnValue: boolean;
  composedPath(): EventTarget[];
  preventDefault(): void;
  stopImmediatePropagation(): void;
  stopPropagation(): void;
  static readonly NONE: 0; static readonly CAPTURING_PHASE: 1; static readonly AT_TARGET: 2; static readonly BUBBLING_PHASE: 3;
}
type EventListenerOrEventListenerObject = ((event: Event) => void) | { handleEvent(event: Event): void };
interface AddEventListenerOptions { capture?: boolean; once?: boolean; passive?: boolean; signal?: AbortSignal; }
declare class EventTarget {
  addEventListener(type: string, callback: EventListenerOrEventListenerObject | null, options?: AddEventListenerOptions | boolean): void;
  removeEventListener(type: string, callback: EventListenerOrEventListenerObject | null, options?: { capture?: boolean } | boolean): void;
  dispatchEvent(event: Event): boolean;
}
declare class AbortSignal extends EventTarget {
  private constructor();
  readonly aborted: boolean;
  readonly reason: any;
  onabort: ((this: AbortSignal, event: Event) => any) | null;
  throwIfAborted(): void;
  static abort(reason?: any): AbortSignal;
  static timeout(milliseconds: number): AbortSignal;
  static any(signals: Iterable<AbortSignal>): AbortSignal;
}
declare class AbortController {
  readonly signal: AbortSignal;
  abort(reason?: any): void;
}
declare class TextEncoder {
  readonly encoding: 'utf-8';
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  readonly encoding: string;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: BufferSource, options?: { stream?: boolean }): string;
}
declare class URLSearchParams {
  constructor(init?: string[][] | Record<string, string> | string | URLSearchParams);
  readonly size: number;
  append(name: string, value: string): void;
  delete(name: string, value?: string): void;
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string, value?: string): boolean;
  set(name: string, value: string): void;
  sort(): void;
  forEach(callbackfn: (value: string, key: string, parent: URLSearchParams) => void, thisArg?: any): void;
  entries(): IterableIterator<[string, string]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
  toString(): string;
}
declare class URL {
  constructor(url: string | URL, base?: string | URL);
  hash: string;
  host: string;
  hostname: string;
  href: string;
  readonly origin: string;
  password: string;
  pathname: string;
  port: string;
  protocol: string;
  search: string;
  readonly searchParams: URLSearchParams;
  username: string;
  toString(): string;
  toJSON(): string;
  static canParse(url: string | URL, base?: string | URL): boolean;
  static parse(url: string | URL, base?: string | URL): URL | null;
}
type AlgorithmIdentifier = string | { name: string };
declare class SubtleCrypto {
  private constructor();
  /** SHA-1, SHA-256, SHA-384 or SHA-512 (no other SubtleCrypto method exists in the sandbox). */
  digest(algorithm: AlgorithmIdentifier, data: BufferSource): Promise<ArrayBuffer>;
}
declare class Crypto {
  private constructor();
  readonly subtle: SubtleCrypto;
  getRandomValues<T extends Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array>(array: T): T;
  randomUUID(): \`\${string}-\${string}-\${string}-\${string}-\${string}\`;
}
declare var crypto: Crypto;
declare class Performance {
  private constructor();
  readonly timeOrigin: number;
  now(): number;
  toJSON(): { timeOrigin: number };
}
declare var performance: Performance;
`;
