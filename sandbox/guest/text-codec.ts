// TextEncoder and TextDecoder (UTF-8 and UTF-16LE), following the Encoding Standard's
// algorithms (lone surrogates encode as U+FFFD; a bad byte sequence decodes as U+FFFD per
// maximal subpart, or throws with `fatal`; `stream` keeps an incomplete sequence). The
// output is sized exactly before it is allocated, so a huge input ends in the heap limit.
import { apply, charCodeAt, defineProperty, getOwnPropertyDescriptor, getPrototypeOf } from './intrinsics.ts';
import { invalidArgType, nodeRangeError, nodeTypeError } from './node-errors.ts';
import { StringBuilder } from './string-builder.ts';

const Uint8 = Uint8Array;
const TypedArrayProto = getPrototypeOf(Uint8Array.prototype) as object;
const typedArrayTag = getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag)?.get as () => string | undefined;
const typedArrayBuffer = getOwnPropertyDescriptor(TypedArrayProto, 'buffer')?.get as () => ArrayBuffer;
const typedArrayOffset = getOwnPropertyDescriptor(TypedArrayProto, 'byteOffset')?.get as () => number;
const typedArrayByteLength = getOwnPropertyDescriptor(TypedArrayProto, 'byteLength')?.get as () => number;
const typedArrayLength = getOwnPropertyDescriptor(TypedArrayProto, 'length')?.get as () => number;
const typedArraySet = (TypedArrayProto as { set: (source: ArrayLike<number>, offset: number) => void }).set;
const abByteLength = getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')?.get as () => number;
const dataViewBuffer = getOwnPropertyDescriptor(DataView.prototype, 'buffer')?.get as () => ArrayBuffer;
const dataViewOffset = getOwnPropertyDescriptor(DataView.prototype, 'byteOffset')?.get as () => number;
const dataViewLength = getOwnPropertyDescriptor(DataView.prototype, 'byteLength')?.get as () => number;

function tryCall<T>(getter: () => T, value: unknown): T | undefined {
  try {
    return apply(getter, value, []) as T;
  } catch {
    return undefined;
  }
}

/** The bytes of an ArrayBuffer, typed array or DataView, or undefined for anything else. */
export function bytesOf(value: unknown): Uint8Array | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (tryCall(typedArrayTag, value) !== undefined) {
    return new Uint8(
      apply(typedArrayBuffer, value, []) as ArrayBuffer,
      apply(typedArrayOffset, value, []) as number,
      apply(typedArrayByteLength, value, []) as number,
    );
  }
  const length = tryCall(dataViewLength, value);
  if (length !== undefined) {
    return new Uint8(
      apply(dataViewBuffer, value, []) as ArrayBuffer,
      apply(dataViewOffset, value, []) as number,
      length,
    );
  }
  if (tryCall(abByteLength, value) !== undefined) return new Uint8(value as ArrayBuffer);
  return undefined;
}

/** The Uint8Array itself when `value` is one (for encodeInto's destination). */
function uint8Target(value: unknown): Uint8Array | undefined {
  return tryCall(typedArrayTag, value) === 'Uint8Array' ? (value as Uint8Array) : undefined;
}

/** UTF-8 byte length of `text` (lone surrogates count as U+FFFD, 3 bytes). */
function utf8Length(text: string): number {
  let bytes = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = apply(charCodeAt, text, [i]) as number;
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < length) {
      const d = apply(charCodeAt, text, [i + 1]) as number;
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Encodes `text` into `out` from 0; stops before a character that does not fit. */
function utf8Write(text: string, out: Uint8Array, capacity: number): { read: number; written: number } {
  let at = 0;
  let i = 0;
  const length = text.length;
  for (; i < length; i++) {
    let c = apply(charCodeAt, text, [i]) as number;
    let units = 1;
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = c <= 0xdbff && i + 1 < length ? (apply(charCodeAt, text, [i + 1]) as number) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        units = 2;
      } else c = 0xfffd;
    }
    if (c < 0x80) {
      if (at + 1 > capacity) break;
      out[at++] = c;
    } else if (c < 0x800) {
      if (at + 2 > capacity) break;
      out[at++] = 0xc0 | (c >> 6);
      out[at++] = 0x80 | (c & 0x3f);
    } else if (c < 0x10000) {
      if (at + 3 > capacity) break;
      out[at++] = 0xe0 | (c >> 12);
      out[at++] = 0x80 | ((c >> 6) & 0x3f);
      out[at++] = 0x80 | (c & 0x3f);
    } else {
      if (at + 4 > capacity) break;
      out[at++] = 0xf0 | (c >> 18);
      out[at++] = 0x80 | ((c >> 12) & 0x3f);
      out[at++] = 0x80 | ((c >> 6) & 0x3f);
      out[at++] = 0x80 | (c & 0x3f);
    }
    i += units - 1;
  }
  return { read: i, written: at };
}

/** UTF-8 bytes of `text` (the captured TextEncoder, for other globals). */
export function utf8Encode(text: string): Uint8Array {
  const length = utf8Length(text);
  const out = new Uint8(length);
  utf8Write(text, out, length);
  return out;
}

export class TextEncoder {
  get encoding(): string {
    return 'utf-8';
  }
  encode(input: unknown = ''): Uint8Array {
    return utf8Encode('' + (input as string));
  }
  encodeInto(source: unknown, destination: Uint8Array): { read: number; written: number } {
    const target = uint8Target(destination);
    if (target === undefined) throw invalidArgType('dest', 'an instance of Uint8Array', destination);
    const result = utf8Write('' + (source as string), target, apply(typedArrayLength, target, []) as number);
    return { read: result.read, written: result.written };
  }
}
defineProperty(TextEncoder.prototype, Symbol.toStringTag, { value: 'TextEncoder', configurable: true });

// The labels of each encoding the decoder knows (one literal: no loop when the prelude loads).
const ENCODINGS = {
  __proto__: null,
  'unicode-1-1-utf-8': 'utf-8',
  unicode11utf8: 'utf-8',
  unicode20utf8: 'utf-8',
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'x-unicode20utf8': 'utf-8',
  csunicode: 'utf-16le',
  'iso-10646-ucs-2': 'utf-16le',
  'ucs-2': 'utf-16le',
  unicode: 'utf-16le',
  unicodefeff: 'utf-16le',
  'utf-16': 'utf-16le',
  'utf-16le': 'utf-16le',
} as unknown as Record<string, string>;

function trimLabel(label: string): string {
  let start = 0;
  let end = label.length;
  const space = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
  while (start < end && space(apply(charCodeAt, label, [start]) as number)) start++;
  while (end > start && space(apply(charCodeAt, label, [end - 1]) as number)) end--;
  return apply(String.prototype.toLowerCase, apply(String.prototype.slice, label, [start, end]), []) as string;
}

/** Set while the prelude makes a decoder of its own (makeOwnUtf8Decoder): no label to parse. */
let makingOwn = false;

export class TextDecoder {
  #encoding: string;
  #fatal: boolean;
  #ignoreBOM: boolean;
  /** Bytes of an incomplete sequence kept by a `stream` decode. */
  #pending: number[] = [];
  #bomSeen = false;

  constructor(label: unknown = 'utf-8', options?: { fatal?: boolean; ignoreBOM?: boolean } | null) {
    const name = makingOwn ? 'utf-8' : ENCODINGS[trimLabel('' + (label as string))];
    if (name === undefined) {
      throw nodeRangeError('ERR_ENCODING_NOT_SUPPORTED', 'The "' + (label as string) + '" encoding is not supported');
    }
    if (options !== undefined && options !== null && typeof options !== 'object') {
      throw invalidArgType('options', 'of type object', options);
    }
    this.#encoding = name;
    this.#fatal = !!options?.fatal;
    this.#ignoreBOM = !!options?.ignoreBOM;
  }
  get encoding(): string {
    return this.#encoding;
  }
  get fatal(): boolean {
    return this.#fatal;
  }
  get ignoreBOM(): boolean {
    return this.#ignoreBOM;
  }

  decode(input?: unknown, options?: { stream?: boolean } | null): string {
    let bytes: Uint8Array;
    if (input === undefined || input === null) bytes = new Uint8(0);
    else {
      const view = bytesOf(input);
      if (view === undefined) {
        throw nodeTypeError(
          'ERR_INVALID_ARG_TYPE',
          'The "list" argument must be an instance of SharedArrayBuffer, ArrayBuffer or ArrayBufferView.',
        );
      }
      bytes = view;
    }
    const stream = !!options?.stream;
    const out = new StringBuilder();
    const pending = this.#pending;
    const all = pending.length === 0 ? bytes : concat(pending, bytes);
    this.#pending = [];
    const end = this.#encoding === 'utf-8' ? this.#utf8(all, out, stream) : this.#utf16(all, out, stream);
    const length = apply(typedArrayLength, all, []) as number;
    for (let i = end; i < length; i++) {
      defineProperty(this.#pending, this.#pending.length, {
        value: all[i],
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
    if (!stream) this.#bomSeen = false;
    return out.done();
  }

  #bad(out: StringBuilder): void {
    if (this.#fatal) {
      this.#pending = [];
      this.#bomSeen = false;
      throw nodeTypeError(
        'ERR_ENCODING_INVALID_ENCODED_DATA',
        'The encoded data was not valid for encoding ' + this.#encoding,
      );
    }
    out.add(0xfffd);
  }

  #emit(out: StringBuilder, codePoint: number): void {
    if (!this.#bomSeen) {
      this.#bomSeen = true;
      if (codePoint === 0xfeff && !this.#ignoreBOM) return;
    }
    if (codePoint >= 0x10000) {
      const c = codePoint - 0x10000;
      out.add(0xd800 + (c >> 10));
      out.add(0xdc00 + (c & 0x3ff));
    } else out.add(codePoint);
  }

  /** Decodes UTF-8; returns where an incomplete sequence kept for the next `stream` call begins. */
  #utf8(bytes: Uint8Array, out: StringBuilder, stream: boolean): number {
    const length = apply(typedArrayLength, bytes, []) as number;
    let i = 0;
    while (i < length) {
      const b = bytes[i] as number;
      if (b < 0x80) {
        this.#emit(out, b);
        i++;
        continue;
      }
      let needed = 0;
      let lower = 0x80;
      let upper = 0xbf;
      let cp = 0;
      if (b >= 0xc2 && b <= 0xdf) {
        needed = 1;
        cp = b & 0x1f;
      } else if (b >= 0xe0 && b <= 0xef) {
        if (b === 0xe0) lower = 0xa0;
        if (b === 0xed) upper = 0x9f;
        needed = 2;
        cp = b & 0xf;
      } else if (b >= 0xf0 && b <= 0xf4) {
        if (b === 0xf0) lower = 0x90;
        if (b === 0xf4) upper = 0x8f;
        needed = 3;
        cp = b & 0x7;
      } else {
        this.#bad(out);
        i++;
        continue;
      }
      let j = i + 1;
      let ok = true;
      for (let k = 0; k < needed; k++, j++) {
        if (j >= length) {
          if (stream) return i;
          ok = false;
          break;
        }
        const c = bytes[j] as number;
        if (c < lower || c > upper) {
          ok = false;
          break;
        }
        lower = 0x80;
        upper = 0xbf;
        cp = (cp << 6) | (c & 0x3f);
      }
      if (!ok) {
        this.#bad(out);
        i = j;
        continue;
      }
      this.#emit(out, cp);
      i = j;
    }
    return length;
  }

  #utf16(bytes: Uint8Array, out: StringBuilder, stream: boolean): number {
    const length = apply(typedArrayLength, bytes, []) as number;
    let i = 0;
    while (i + 1 < length) {
      const unit = (bytes[i] as number) | ((bytes[i + 1] as number) << 8);
      if (unit >= 0xd800 && unit <= 0xdbff) {
        if (i + 3 >= length) {
          if (stream) return i;
          this.#bad(out);
          i += 2;
          continue;
        }
        const next = (bytes[i + 2] as number) | ((bytes[i + 3] as number) << 8);
        if (next >= 0xdc00 && next <= 0xdfff) {
          this.#emit(out, 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00));
          i += 4;
        } else {
          this.#bad(out);
          i += 2;
        }
      } else if (unit >= 0xdc00 && unit <= 0xdfff) {
        this.#bad(out);
        i += 2;
      } else {
        this.#emit(out, unit);
        i += 2;
      }
    }
    if (i < length) {
      if (stream) return i;
      this.#bad(out);
    }
    return length;
  }
}

/**
 * A UTF-8 decoder that keeps a BOM, for the prelude's own use. It may be made after the
 * program ran (url-encoding.ts, on the first URL parsed): its label is not parsed, as
 * parsing reads String.prototype as the program left it, and its options have no prototype.
 */
export function makeOwnUtf8Decoder(): TextDecoder {
  makingOwn = true;
  try {
    return new TextDecoder('utf-8', { __proto__: null, ignoreBOM: true } as { ignoreBOM: boolean });
  } finally {
    makingOwn = false;
  }
}
defineProperty(TextDecoder.prototype, Symbol.toStringTag, { value: 'TextDecoder', configurable: true });

function concat(head: readonly number[], tail: Uint8Array): Uint8Array {
  const out = new Uint8(head.length + tail.length);
  for (let i = 0; i < head.length; i++) out[i] = head[i] as number;
  apply(typedArraySet, out, [tail, head.length]);
  return out;
}

/** UTF-8 text of `bytes`, invalid sequences replaced (for other globals). */
export function utf8Decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
