// Stands in for whatwg-url's lib/encoding.js (bundle-guest-prelude.ts points it here), so
// URL parsing uses the prelude's own UTF-8 codec, not whatever the program put in the
// TextEncoder/TextDecoder globals.
import { apply } from './intrinsics.ts';
import { makeOwnUtf8Decoder, TextDecoder, utf8Encode } from './text-codec.ts';

const decode = TextDecoder.prototype.decode;
// Made on the first URL parsed (most runs parse none), by a path that reads nothing a
// program can replace.
let decoder: TextDecoder | undefined;

export { utf8Encode };

export function utf8DecodeWithoutBOM(bytes: Uint8Array): string {
  decoder ??= makeOwnUtf8Decoder();
  return apply(decode, decoder, [bytes]) as string;
}
