// Who may use `ptc serve --http`: loopback detection (a public bind needs a token), the
// token's minimum length, and the bearer check. No MCP SDK import, so the CLI can apply
// these rules before it loads anything.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

export const MIN_TOKEN_LENGTH = 16;

/** Whether binding `host` keeps the server reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/u, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** A checker of `Authorization: Bearer <token>` headers that takes the same time whatever is presented. */
export function bearerChecker(token: string): (authorization: string | undefined) => boolean {
  // Equal-length digests, so timingSafeEqual never sees lengths that differ.
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer +(\S+) *$/iu.exec(authorization ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!), expected);
  };
}
