// Stands in for whatwg-url's lib/encoding.js (bundle-guest-prelude.ts points it here), so
// URL parsing uses the prelude's own UTF-8 codec, not whatever the program put in the
// TextEncoder/TextDecoder globals.
import { apply } from './intrinsics.ts';
import { TextDecoder, utf8Encode } from './text-codec.ts';

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const decode = TextDecoder.prototype.decode;

export { utf8Encode };

export function utf8DecodeWithoutBOM(bytes: Uint8Array): string {
  return apply(decode, decoder, [bytes]) as string;
}
