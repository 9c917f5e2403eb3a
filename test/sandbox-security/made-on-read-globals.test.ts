// `crypto` and `performance` are getters whose object is made on the first read (most
// programs never touch them). A program that first replaced every built-in it can reach
// (each global binding, every configurable property and accessor of the globals, their
// prototypes and the iterator prototypes, each read recorded) and only then reads them
// gets the same objects, working the same, as one that read them before replacing
// anything: making them calls and reads none of the replacements.
// The hash functions of crypto.subtle.digest are made on the first digest as well (their
// code nested in one function): after such a program they hash the same.

import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import { expectOk, fakeHost } from '../sandbox/helpers.ts';
import { replaceEveryBuiltin } from './replace-every-builtin.ts';

/** The program: `readFirst` reads the two globals before replacing anything. */
const program = (readFirst: boolean): string => `
  const ArrayFrom = Array.from, tagOf = Object.prototype.toString;
  ${readFirst ? 'const early = [crypto, performance];' : ''}
  ${replaceEveryBuiltin('reads')}
  armed = true;
  const c = crypto;
  const p = performance;
  const madeCount = hits.length;
  'a,b'.split(',');
  armed = false;
  return {
    madeHits: hits.slice(0, madeCount),
    control: hits.slice(madeCount),
    replaced,
    same: c === crypto && p === performance && c.subtle === c.subtle${readFirst ? ' && early[0] === c && early[1] === p' : ''},
    tags: [apply(tagOf, c, []), apply(tagOf, p, []), apply(tagOf, c.subtle, [])],
    protos: [protoOf(c) === Crypto.prototype, protoOf(p) === Performance.prototype, protoOf(c.subtle) === SubtleCrypto.prototype],
    random: ArrayFrom(c.getRandomValues(new Uint8Array(8))),
    uuid: c.randomUUID(),
    now: typeof p.now(),
    origin: p.timeOrigin,
  };
`;

describe.each(['in-process', 'process'] as const)(
  'crypto and performance first read after built-ins were replaced (%s)',
  (isolation) => {
    const sandbox = createSandbox({ isolation, poolSize: 1, limits: { wallTimeMs: 30_000, cpuTimeMs: 10_000 } });
    afterAll(() => sandbox.close());
    const determinism = { seed: 'made-on-read', clockStartMs: 1_700_000_000_000 };

    it('makes them calling and reading none of the replacements, and they work as when read before', async () => {
      const run = (readFirst: boolean) =>
        sandbox.run({ code: program(readFirst), toolNames: [], hostCall: fakeHost().hostCall, determinism });
      const before = await run(true);
      const after = await run(false);
      expectOk(before);
      expectOk(after);
      const early = (before.ok ? before.result : {}) as Record<string, unknown>;
      const late = (after.ok ? after.result : {}) as Record<string, unknown>;
      expect(late['madeHits']).toStrictEqual([]);
      // The replacements were live and recording: the program's own call after the reads is seen.
      expect(late['control']).toEqual(
        expect.arrayContaining(['String.prototype.split (read)', 'String.prototype.split']),
      );
      expect(late['replaced']).toBeGreaterThan(500);
      expect(late['same']).toBe(true);
      expect(late['tags']).toStrictEqual(['[object Crypto]', '[object Performance]', '[object SubtleCrypto]']);
      expect(late['protos']).toStrictEqual([true, true, true]);
      for (const key of ['madeHits', 'same', 'tags', 'protos', 'random', 'uuid', 'now', 'origin'])
        expect([key, late[key]]).toStrictEqual([key, early[key]]);
    });

    it('hashes the same on a first digest after every built-in was replaced', async () => {
      const digests = `
      const hex = (buffer: ArrayBuffer) => { let out = ''; const bytes = new Uint8Array(buffer); for (let i = 0; i < bytes.length; i++) out += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16); return out; };
      const data = new TextEncoder().encode('hello, digest');
      const out: string[] = [];
      for (const algorithm of ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512']) out[out.length] = hex(await crypto.subtle.digest(algorithm, data));
    `;
      const plain = await sandbox.run({
        code: `${digests}\nreturn out;`,
        toolNames: [],
        hostCall: fakeHost().hostCall,
      });
      const hostile = await sandbox.run({
        code: `
        ${replaceEveryBuiltin('reads')}
        ${digests}
        return { out, replaced };
      `,
        toolNames: [],
        hostCall: fakeHost().hostCall,
      });
      expectOk(plain);
      expectOk(hostile);
      const result = (hostile.ok ? hostile.result : {}) as { out: string[]; replaced: number };
      expect(result.replaced).toBeGreaterThan(500);
      expect(result.out).toStrictEqual(plain.ok ? plain.result : undefined);
      expect(result.out).toStrictEqual(
        ['sha1', 'sha256', 'sha384', 'sha512'].map((algorithm) =>
          createHash(algorithm).update('hello, digest').digest('hex'),
        ),
      );
    });

    it('keeps a value assigned before the first read, and never makes the object then', async () => {
      const outcome = await sandbox.run({
        code: `
        (globalThis as any).crypto = 7;
        const a = (globalThis as any).crypto;
        (globalThis as any).performance = null;
        const d = Object.getOwnPropertyDescriptor(globalThis, 'crypto')!;
        return [a, (globalThis as any).performance, typeof d.get, typeof d.set, d.enumerable, d.configurable, d.get!.name, d.set!.name];
      `,
        toolNames: [],
        hostCall: fakeHost().hostCall,
      });
      expectOk(outcome, [7, null, 'function', 'function', true, true, 'get', 'set'] as never);
    });
  },
);
