// The guest's source of random bits for crypto.getRandomValues/randomUUID.
const mathRandom = Math.random;

/** The next 32 random bits, as an unsigned integer. */
export function randomUint32(): number {
  return (mathRandom() * 4294967296) >>> 0;
}
