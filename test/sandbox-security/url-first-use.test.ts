// URL's library is evaluated on a program's first use of URL, after the program ran. A
// program that first replaced every built-in it can reach (each global binding, every
// replaceable method and accessor of the language's constructors, namespaces, their
// prototypes and the iterator prototypes, and of the sandbox's web globals) gets the same
// URL behaviour as Node, and the library calls none of its replacements, nor reads them.
// What is replaced is whatever this engine has: on a newer Node line that includes its
// newer built-ins (Node 26's Uint8Array.prototype.toBase64, which the library reads).
// The built-ins the library reads are captured before the program runs when its text
// names URL (every program here); one that reaches URL only by a computed name gets a
// working URL too, with those captured at its first use.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import { expectOk, fakeHost } from '../sandbox/helpers.ts';
import { type Replacement, replaceEveryBuiltin } from './replace-every-builtin.ts';

/** The URL work, written with no built-in of the program's own (the program replaced them all). */
const URL_WORK = `
  const out: unknown[] = [];
  const u = new URL('HTTP://User:Pw@例え.JP:8080/a/./b/../c d?x=1&y=2#frag');
  out[out.length] = u.href; out[out.length] = u.host; out[out.length] = u.pathname; out[out.length] = u.origin;
  u.searchParams.set('z', 'é ü');
  u.searchParams.append('y', '3');
  u.searchParams.delete('x');
  u.searchParams.sort();
  out[out.length] = u.search; out[out.length] = u.href;
  const relative = new URL('../d/e?q#h', 'https://example.org/a/b/c');
  out[out.length] = relative.href;
  const params = new URLSearchParams([['a', '1'], ['b', '2'], ['a', '3']]);
  out[out.length] = params.getAll('a'); out[out.length] = params.toString(); out[out.length] = params.size;
  const keys: string[] = [];
  const entries = new URLSearchParams({ k: 'v w', 'ü': '+' }).entries();
  for (let step = entries.next(); !step.done; step = entries.next()) keys[keys.length] = step.value[0] + '=' + step.value[1];
  out[out.length] = keys;
  out[out.length] = new URLSearchParams('?a=b%20c&&d=%zz&e').toString();
  out[out.length] = new URL('http://xn--nxasmq6b.com/').hostname;
  out[out.length] = new URL('http://[::1]:80/').host;
  out[out.length] = new URL('http://0x7f.1/').hostname;
  out[out.length] = new URL('file:///C:/x/../y').pathname;
  out[out.length] = URL.canParse('nope'); out[out.length] = URL.canParse('a:b');
  out[out.length] = URL.parse('http://a/b', 'http://c')!.href;
  try { new URL('http://exa mple.com'); out[out.length] = 'parsed'; } catch (error: any) { out[out.length] = error.code; }
`;

/** The same work in Node, whose URL is its own (native) parser. */
function nodeResults(): unknown[] {
  const out: unknown[] = [];
  const u = new URL('HTTP://User:Pw@例え.JP:8080/a/./b/../c d?x=1&y=2#frag');
  out.push(u.href, u.host, u.pathname, u.origin);
  u.searchParams.set('z', 'é ü');
  u.searchParams.append('y', '3');
  u.searchParams.delete('x');
  u.searchParams.sort();
  out.push(u.search, u.href);
  out.push(new URL('../d/e?q#h', 'https://example.org/a/b/c').href);
  const params = new URLSearchParams([
    ['a', '1'],
    ['b', '2'],
    ['a', '3'],
  ]);
  out.push(params.getAll('a'), params.toString(), params.size);
  out.push([...new URLSearchParams({ k: 'v w', ü: '+' }).entries()].map(([key, value]) => `${key}=${value}`));
  out.push(new URLSearchParams('?a=b%20c&&d=%zz&e').toString());
  out.push(new URL('http://xn--nxasmq6b.com/').hostname, new URL('http://[::1]:80/').host);
  out.push(new URL('http://0x7f.1/').hostname, new URL('file:///C:/x/../y').pathname);
  out.push(URL.canParse('nope'), URL.canParse('a:b'), URL.parse('http://a/b', 'http://c')?.href);
  try {
    new URL('http://exa mple.com');
    out.push('parsed');
  } catch (error) {
    out.push((error as { code?: string }).code);
  }
  return out;
}

/**
 * How the program replaces a built-in's data property: by a recording wrapper of the
 * function (`calls`: a call of it is seen), or by an accessor that records each read and
 * gives that wrapper (`reads`: also a method only looked at, as a feature check does, is
 * seen, and any configurable data property the library reads).
 */

/**
 * Replaces, before any use of URL: each global binding by a recording Proxy; and every
 * replaceable function-valued property (with `reads`, every configurable data property)
 * and accessor of each global, of its prototype and of the intrinsic prototypes no global
 * names, by a recording wrapper of the original. The holders and keys are whatever this
 * engine has (a newer V8 has more, e.g. Uint8Array.prototype.toBase64). Then does the URL
 * work while recording, and a control: the program's own use of a few built-ins, which
 * the recorders must see.
 */
const hostileProgram = (replacement: Replacement): string => `
  ${replaceEveryBuiltin(replacement)}
  armed = true;
  ${URL_WORK}
  const libraryCount = hits.length;
  'a,b'.split(',');
  [1, 2].map((x) => x);
  Object.keys({});
  armed = false;
  return { out, libraryHits: hits.slice(0, libraryCount), controlHits: hits.slice(libraryCount), replaced };
`;

/**
 * What the library may read of the program's own values: WebIDL looks up the iterator
 * method of the sequence the program passes to `URLSearchParams` (Node does too), and the
 * program's array has the replaced one.
 */
const READS_OF_THE_PROGRAMS_OWN: Record<Replacement, readonly string[]> = {
  calls: [],
  reads: ['Array.prototype.Symbol(Symbol.iterator) (read)'],
};

describe.each(['in-process', 'process'] as const)(
  'URL first used after the program replaced built-ins (%s)',
  (isolation) => {
    const sandbox = createSandbox({ isolation, poolSize: 1, limits: { wallTimeMs: 30_000, cpuTimeMs: 10_000 } });
    afterAll(() => sandbox.close());

    it('parses as Node does, without a run that replaced nothing (the baseline)', async () => {
      const outcome = await sandbox.run({
        code: `${URL_WORK}\nreturn out;`,
        toolNames: [],
        hostCall: fakeHost().hostCall,
      });
      expectOk(outcome, nodeResults() as never);
    });

    it.each([
      ['calls none of the replaced methods', 'calls'],
      ['reads none of the replaced properties', 'reads'],
    ] as const)('parses the same and %s', async (_, replacement) => {
      const outcome = await sandbox.run({
        code: hostileProgram(replacement),
        toolNames: [],
        hostCall: fakeHost().hostCall,
      });
      expectOk(outcome);
      const result = (outcome.ok ? outcome.result : {}) as {
        out: unknown[];
        libraryHits: string[];
        controlHits: string[];
        replaced: number;
      };
      expect(result.libraryHits).toStrictEqual(READS_OF_THE_PROGRAMS_OWN[replacement]);
      expect(result.out).toStrictEqual(nodeResults());
      // The replacements were real and record: the program's own calls after the URL work are seen.
      const control = ['String.prototype.split', 'Array.prototype.map', 'global Object.keys', 'Object.keys'];
      expect(result.controlHits).toEqual(expect.arrayContaining(control));
      if (replacement === 'reads')
        expect(result.controlHits).toEqual(
          expect.arrayContaining(['String.prototype.split (read)', 'Array.prototype.map (read)', 'Object.keys (read)']),
        );
      expect(result.replaced).toBeGreaterThan(500);
    });

    // The built-ins the library reads are captured before the program only when its text
    // names URL; one that reaches URL by a computed name has them captured on first use.
    it('gives URL to a program that reaches it by a computed name (its text never names it)', async () => {
      const code = `
        const name = ['U', 'R', 'L'].join('');
        const Ctor = (globalThis as any)[name];
        const Params = (globalThis as any)[name + 'SearchParams'];
        const u = new Ctor('HTTP://Example.ORG:80/a/./b/../c?x=1#f');
        return [u.href, u.host, new Params('a=1&b=2').get('b'), Ctor.canParse('nope')];
      `;
      expect(code.includes('URL')).toBe(false);
      const outcome = await sandbox.run({ code, toolNames: [], hostCall: fakeHost().hostCall });
      expectOk(outcome, ['http://example.org/a/c?x=1#f', 'example.org', '2', false] as never);
    });
  },
);
