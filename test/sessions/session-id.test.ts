// Session ids are 128 random bits in base64url and never start with '-': one that did was
// read as an option by `ptc sessions show <id>` (1 id in 64).
import { expect, it } from '@jest/globals';
import { newSessionId } from '../../src/sessions/session-id.ts';

it("20,000 fresh ids: 22 base64url characters each, all distinct, none starting with '-'", () => {
  const ids = Array.from({ length: 20_000 }, newSessionId);
  for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/u);
  expect(new Set(ids).size).toBe(ids.length);
  // Every other first character still comes up (the draw is not narrowed further).
  expect(new Set(ids.map((id) => id[0])).size).toBe(63);
});
