// A new session's id: 128 random bits in base64url (22 characters), never starting with
// '-', which a command line would read as an option (`ptc sessions show <id>`).
import { randomBytes } from 'node:crypto';

/** A fresh session id: 128 random bits, base64url, first character a letter, digit or '_'. */
export function newSessionId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}
