// Stands in for whatwg-url's lib/encoding.js (bundle-guest-prelude.ts points it here), so
// URL parsing uses the prelude's own UTF-8 codec, not whatever the program put in the
// TextEncoder/TextDecoder globals.
import { TextDecoder, utf8Encode } from './text-codec.ts';

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

export { utf8Encode };

export function utf8DecodeWithoutBOM(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
