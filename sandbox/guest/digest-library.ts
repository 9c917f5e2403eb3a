// The hash functions of crypto.subtle.digest (digest-hashes.ts with @noble/hashes) as one
// function that makes them, called on the first digest (web-crypto.ts). Its body is put
// here when the prelude is bundled (bundle-guest-prelude.ts): nested in a function never
// called before, none of the library's ~30 functions is in the code cache every isolate
// reads, and nothing of it runs while the prelude loads.
import type { sha1, sha256, sha384, sha512 } from './digest-hashes.ts';

export interface DigestHashes {
  readonly sha1: typeof sha1;
  readonly sha256: typeof sha256;
  readonly sha384: typeof sha384;
  readonly sha512: typeof sha512;
}

export declare const makeDigestHashes: () => DigestHashes;
