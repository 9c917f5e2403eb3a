// The hash functions of crypto.subtle.digest, required on its first use (web-crypto.ts).
// One module required instead of two: the bundle builds a namespace object for each
// required module at every evaluation of the prelude, and these two had 18 names.
export { sha1 } from '@noble/hashes/legacy.js';
export { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
