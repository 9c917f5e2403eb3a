// The hash functions of crypto.subtle.digest: bundled on their own into the function
// digest-library.ts stands for (bundle-guest-prelude.ts), which makes them on first use.
export { sha1 } from '@noble/hashes/legacy.js';
export { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
