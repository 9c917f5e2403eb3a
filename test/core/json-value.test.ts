// snapshotJson / deepFreeze: lossless for every JSON value, refuses everything else.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { runInNewContext } from 'node:vm';
import { deepFreeze, MAX_JSON_DEPTH, NotJsonError, snapshotJson } from '../../src/index.ts';
import { freezeParsedJson, trySnapshotJson } from '../../src/json/json-value.ts';
import { isDeepFrozen } from './helpers.ts';

class Point {
  x = 1;
}

/** Values that are not lossless JSON, each with the path suffix snapshotJson must report. */
const POISONS: ReadonlyArray<readonly [string, () => unknown, string]> = [
  ['undefined', () => undefined, ''],
  ['a function', () => () => 1, ''],
  ['a BigInt', () => 10n, ''],
  ['a Symbol', () => Symbol('s'), ''],
  ['NaN', () => Number.NaN, ''],
  ['Infinity', () => Number.POSITIVE_INFINITY, ''],
  ['-Infinity', () => Number.NEGATIVE_INFINITY, ''],
  ['a Date', () => new Date(0), ''],
  ['a class instance', () => new Point(), ''],
  ['a Map', () => new Map(), ''],
  ['a Set', () => new Set(), ''],
  ['a RegExp', () => /x/, ''],
  ['a typed array', () => new Uint8Array(2), ''],
  ['a boxed number', () => Object(1), ''],
  ['a sparse array', () => [1, , 3], ''],
  ['an array with an extra property', () => Object.assign([1], { extra: 1 }), ''],
  ['an accessor property', () => Object.defineProperty({}, 'g', { get: () => 1, enumerable: true }), '.g'],
  ['a symbol-keyed property', () => ({ [Symbol('k')]: 1 }), ''],
  ['a non-enumerable property', () => Object.defineProperty({}, 'hidden', { value: 1, enumerable: false }), '.hidden'],
  [
    'a cycle',
    () => {
      const o: Record<string, unknown> = {};
      o.self = o;
      return o;
    },
    '.self',
  ],
];

type Wrap =
  | { readonly kind: 'object'; readonly key: string; readonly sibling: unknown }
  | { readonly kind: 'array'; readonly sibling: unknown };

/** Puts `inner` inside the chain of containers, innermost last, and returns the value and the path of `inner`. */
function nest(inner: unknown, wraps: readonly Wrap[]): { value: unknown; path: string } {
  let value = inner;
  let suffix = '';
  for (const w of [...wraps].reverse()) {
    if (w.kind === 'object') {
      const o: Record<string, unknown> = { sibling: w.sibling };
      Object.defineProperty(o, w.key, { value, enumerable: true, writable: true, configurable: true });
      value = o;
      suffix = `.${w.key}${suffix}`;
    } else {
      value = [w.sibling, value];
      suffix = `[1]${suffix}`;
    }
  }
  return { value, path: `$${suffix}` };
}

const wrapArb: fc.Arbitrary<Wrap> = fc.oneof(
  fc.record({
    kind: fc.constant('object' as const),
    key: fc.constantFrom('a', 'b_1', 'inner'),
    sibling: fc.jsonValue({ maxDepth: 2 }),
  }),
  fc.record({ kind: fc.constant('array' as const), sibling: fc.jsonValue({ maxDepth: 2 }) }),
);

describe('snapshotJson', () => {
  it('is lossless for random JSON: equal, a fresh copy, deep-frozen, and stable through JSON text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const snap = snapshotJson(value);
        expect(snap).toEqual(value);
        expect(isDeepFrozen(snap)).toBe(true);
        if (typeof value === 'object' && value !== null) expect(snap).not.toBe(value);
        expect(JSON.parse(JSON.stringify(snap))).toEqual(JSON.parse(JSON.stringify(value)));
        expect(snapshotJson(snap)).toEqual(snap);
      }),
      { numRuns: 300 },
    );
  });

  it('is lossless for JSON parsed from text, including "__proto__" keys kept as own data', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed: unknown = JSON.parse(JSON.stringify(value));
        expect(JSON.stringify(snapshotJson(parsed))).toBe(JSON.stringify(parsed));
      }),
      { numRuns: 200 },
    );
    const parsed: unknown = JSON.parse('{"__proto__":{"polluted":true},"constructor":1}');
    const snap = snapshotJson(parsed) as Record<string, unknown>;
    expect(Object.keys(snap)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(snap)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(snap)).toBe('{"__proto__":{"polluted":true},"constructor":1}');
  });

  it('keeps null-prototype objects and -0 as they are', () => {
    const bare = Object.assign(Object.create(null) as object, { a: 1 });
    expect(snapshotJson(bare)).toEqual({ a: 1 });
    expect(Object.is(snapshotJson(-0), -0)).toBe(true);
  });

  it("accepts plain data from another realm (JSON that Node's fetch parsed, seen from a vm context) as a copy in ours", () => {
    const foreign = runInNewContext('JSON.parse(\'{"a":{"b":[1,"x",null]},"c":true}\')') as unknown;
    expect(Object.getPrototypeOf(foreign)).not.toBe(Object.prototype);
    const snap = snapshotJson(foreign) as { a: unknown };
    expect(snap).toEqual({ a: { b: [1, 'x', null] }, c: true });
    expect(Object.getPrototypeOf(snap)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(snap.a)).toBe(Object.prototype);
  });

  it('still refuses a foreign Date or class instance, and a fake Object.prototype', () => {
    expect(() => snapshotJson(runInNewContext('new Date(0)'))).toThrow(/a Date is not JSON|class instance/u);
    expect(() => snapshotJson(runInNewContext('new (class Point { constructor() { this.x = 1; } })()'))).toThrow(
      NotJsonError,
    );
    const fakeProto = Object.create(null) as { constructor?: unknown };
    fakeProto.constructor = function Object() {};
    (fakeProto.constructor as { prototype: unknown }).prototype = fakeProto;
    expect(() => snapshotJson(Object.create(fakeProto))).toThrow(/class instance or exotic object/u);
    expect(() => snapshotJson(Object.create(Object.create(null)))).toThrow(NotJsonError);
  });

  it.each(POISONS)('refuses %s at the top level and reports the path', (_label, make, suffix) => {
    expect(() => snapshotJson(make())).toThrow(NotJsonError);
    try {
      snapshotJson(make());
    } catch (error) {
      expect((error as NotJsonError).path).toBe(`$${suffix}`);
    }
  });

  it('refuses every non-JSON value hidden anywhere inside random JSON, naming its path', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...POISONS),
        fc.array(wrapArb, { minLength: 1, maxLength: 6 }),
        ([, make, suffix], wraps) => {
          const { value, path } = nest(make(), wraps);
          let thrown: unknown;
          try {
            snapshotJson(value);
          } catch (error) {
            thrown = error;
          }
          expect(thrown).toBeInstanceOf(NotJsonError);
          expect((thrown as NotJsonError).path).toBe(`${path}${suffix}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reports a Proxy whose trap throws as not JSON instead of throwing something else', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('trap');
        },
      },
    );
    const result = trySnapshotJson(hostile);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain('trap');
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(trySnapshotJson({ p: proxy }).ok).toBe(false);
  });

  it('copies MAX_JSON_DEPTH (256) levels, deep-frozen', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < MAX_JSON_DEPTH; i += 1) deep = i % 2 === 0 ? [deep] : { d: deep };
    const snap = snapshotJson(deep);
    let cursor: unknown = snap;
    let depth = 0;
    let allFrozen = true;
    while (typeof cursor === 'object' && cursor !== null) {
      allFrozen &&= Object.isFrozen(cursor);
      cursor = Array.isArray(cursor) ? cursor[0] : (cursor as { d: unknown }).d;
      depth += 1;
    }
    expect(allFrozen).toBe(true);
    expect(depth).toBe(MAX_JSON_DEPTH);
    expect(cursor).toBe('leaf');
  });

  // Deep values are model input (a few MiB of `[[[[` is a million levels): copying one
  // cost the host hundreds of MiB before this bound.
  it('refuses one level more, and a million levels, at the first level too deep', () => {
    for (const levels of [MAX_JSON_DEPTH + 1, 1_000_000]) {
      let deep: unknown = 1;
      for (let i = 0; i < levels; i += 1) deep = [deep];
      let error: unknown;
      try {
        snapshotJson({ data: deep }, 'args');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(NotJsonError);
      expect((error as NotJsonError).reason).toBe('nesting deeper than 256 levels is not supported');
      expect((error as NotJsonError).path).toBe(`args.data${'[0]'.repeat(MAX_JSON_DEPTH - 1)}`);
    }
  });

  it('accepts a shared (non-cyclic) subobject twice', () => {
    const shared = { v: 1 };
    expect(snapshotJson({ a: shared, b: [shared, shared] })).toEqual({ a: { v: 1 }, b: [{ v: 1 }, { v: 1 }] });
  });

  it('copies, so later mutation of the source does not reach the snapshot', () => {
    const source = { list: [1, 2] };
    const snap = snapshotJson(source) as { list: number[] };
    source.list.push(3);
    expect(snap.list).toEqual([1, 2]);
  });
});

// run_code's nested-call arguments skip the copy: the parsed value is frozen in place.
// It must be exactly the snapshot snapshotJson would make, or undefined where
// snapshotJson refuses (then the caller takes snapshotJson's path and its error).
describe('freezeParsedJson', () => {
  const deepText = (levels: number): string => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

  it('gives what snapshotJson gives for random JSON text: equal, the same object, deep-frozen', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const expected = snapshotJson(JSON.parse(text));
        const parsed: unknown = JSON.parse(text);
        const frozen = freezeParsedJson(parsed);
        expect(frozen).toBe(parsed);
        expect(frozen).toEqual(expected);
        expect(JSON.stringify(frozen)).toBe(JSON.stringify(expected));
        expect(isDeepFrozen(frozen)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps -0 and "__proto__" keys as snapshotJson does', () => {
    const parsed = freezeParsedJson(JSON.parse('{"__proto__":{"a":-0},"b":[-0]}')) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['__proto__', 'b']);
    const own = Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value as { a: number };
    expect(Object.is(own.a, -0)).toBe(true);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.is(freezeParsedJson(JSON.parse('-0')), -0)).toBe(true);
  });

  it('accepts exactly MAX_JSON_DEPTH levels and returns undefined one level deeper, where snapshotJson throws', () => {
    expect(freezeParsedJson(JSON.parse(deepText(MAX_JSON_DEPTH)))).toEqual(
      snapshotJson(JSON.parse(deepText(MAX_JSON_DEPTH))),
    );
    for (const text of [deepText(MAX_JSON_DEPTH + 1), `{"a":${deepText(MAX_JSON_DEPTH)}}`, deepText(100_000)]) {
      expect(freezeParsedJson(JSON.parse(text))).toBeUndefined();
      expect(trySnapshotJson(JSON.parse(text)).ok).toBe(false);
    }
  });

  it('returns undefined for a number too large to be finite (1e999 parses to Infinity), where snapshotJson throws', () => {
    for (const text of ['1e999', '-1e999', '{"a":[1,2e400]}', '[[{"x":-5e999}]]']) {
      expect(freezeParsedJson(JSON.parse(text))).toBeUndefined();
      expect(trySnapshotJson(JSON.parse(text)).ok).toBe(false);
    }
  });
});

describe('deepFreeze', () => {
  it('freezes every nested object in place and returns the same reference', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(deepFreeze(value)).toBe(value);
        expect(isDeepFrozen(value)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('handles cycles and 100,000 levels', () => {
    const o: Record<string, unknown> = { a: [1] };
    o.self = o;
    deepFreeze(o);
    expect(Object.isFrozen(o.a)).toBe(true);
    let deep: unknown = {};
    const first = deep;
    for (let i = 0; i < 100_000; i += 1) deep = { d: deep };
    deepFreeze(deep);
    expect(Object.isFrozen(first)).toBe(true);
  });
});
