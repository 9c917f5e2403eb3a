// atob and btoa: forgiving-base64 as the HTML standard and Node define it, with Node's
// DOMException messages. Strings are built a chunk at a time on the heap, so a huge input
// ends in the heap limit.
import { apply, charCodeAt } from './intrinsics.ts';
import { DOMException } from './dom-exception.ts';
import { missingArgs } from './node-errors.ts';
import { StringBuilder } from './string-builder.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The value of base64 character code `c` (ALPHABET's order), or -1: by ranges, no table to build when the prelude loads. */
function base64Value(c: number): number {
  if (c >= 0x61) return c <= 0x7a ? c - 0x61 + 26 : -1;
  if (c >= 0x41) return c <= 0x5a ? c - 0x41 : -1;
  if (c >= 0x30) return c <= 0x39 ? c - 0x30 + 52 : -1;
  return c === 0x2b ? 62 : c === 0x2f ? 63 : -1;
}

function invalidCharacter(): DOMException {
  return new DOMException('Invalid character', 'InvalidCharacterError');
}

function notCorrectlyEncoded(): DOMException {
  return new DOMException('The string to be decoded is not correctly encoded.', 'InvalidCharacterError');
}

function isAsciiWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

export function btoa(...args: unknown[]): string {
  if (args.length === 0) throw missingArgs('input');
  const input = '' + (args[0] as string);
  const length = input.length;
  for (let i = 0; i < length; i++) if ((apply(charCodeAt, input, [i]) as number) > 0xff) throw invalidCharacter();
  const out = new StringBuilder();
  let i = 0;
  for (; i + 2 < length; i += 3) {
    const n =
      ((apply(charCodeAt, input, [i]) as number) << 16) |
      ((apply(charCodeAt, input, [i + 1]) as number) << 8) |
      (apply(charCodeAt, input, [i + 2]) as number);
    out.add(apply(charCodeAt, ALPHABET, [n >> 18]) as number);
    out.add(apply(charCodeAt, ALPHABET, [(n >> 12) & 63]) as number);
    out.add(apply(charCodeAt, ALPHABET, [(n >> 6) & 63]) as number);
    out.add(apply(charCodeAt, ALPHABET, [n & 63]) as number);
  }
  const rest = length - i;
  if (rest > 0) {
    const a = apply(charCodeAt, input, [i]) as number;
    const b = rest === 2 ? (apply(charCodeAt, input, [i + 1]) as number) : 0;
    const n = (a << 16) | (b << 8);
    out.add(apply(charCodeAt, ALPHABET, [n >> 18]) as number);
    out.add(apply(charCodeAt, ALPHABET, [(n >> 12) & 63]) as number);
    out.add(rest === 2 ? (apply(charCodeAt, ALPHABET, [(n >> 6) & 63]) as number) : 0x3d);
    out.add(0x3d);
  }
  return out.done();
}

export function atob(...args: unknown[]): string {
  if (args.length === 0) throw missingArgs('input');
  const input = '' + (args[0] as string);
  const length = input.length;
  // Checked as Node checks it (forgiving-base64, whitespace ignored anywhere), so the
  // same inputs fail with the same message.
  let significant = 0;
  let equals = 0;
  for (let i = 0; i < length; i++) {
    const c = apply(charCodeAt, input, [i]) as number;
    if (isAsciiWhitespace(c)) continue;
    if (c === 0x3d) {
      significant++;
      equals++;
      if (equals > 2) throw invalidCharacter();
      continue;
    }
    if (base64Value(c) < 0 || equals > 0) throw invalidCharacter();
    significant++;
  }
  let remainder = significant % 4;
  if (remainder === 0) remainder = (significant - equals) % 4;
  else if (equals > 0) throw notCorrectlyEncoded();
  if (remainder === 1) throw notCorrectlyEncoded();
  const out = new StringBuilder();
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < length; i++) {
    const c = apply(charCodeAt, input, [i]) as number;
    if (isAsciiWhitespace(c) || c === 0x3d) continue;
    buffer = ((buffer << 6) | base64Value(c)) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.add((buffer >> bits) & 0xff);
    }
  }
  return out.done();
}
