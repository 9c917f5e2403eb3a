// Type-level tests of DSL inference (checked by `tsc --noEmit`, which `npm test` runs
// on test/ too): each `Expect<Equal<…>>` fails to compile if inference changes, and
// each `@ts-expect-error` fails to compile if a wrong use stops being an error.
// Inference types 16 container levels (the args root is one); the 17th is JsonValue.
import { describe, expect, it } from '@jest/globals';
import {
  createToolRuntime,
  defineTool,
  DefinitionError,
  type InferArgs,
  type InferNode,
  type JsonValueType,
  type MaxInferenceDepth,
} from '../../src/index.ts';
import { call, text } from './helpers.ts';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;

// ---- scalars, required/optional, literals, nullable ----
type Scalars = InferArgs<{
  s: { type: 'string'; required: true };
  i: { type: 'integer'; required: true };
  n: { type: 'number' };
  b: { type: 'boolean'; required: true };
  z: { type: 'null'; required: true };
  e: { type: 'string'; enum: readonly ['a', 'b']; required: true };
  c: { type: 'number'; const: 3; required: true };
  ns: { type: 'string'; nullable: true; required: true };
  j: { type: 'json'; required: true };
}>;
export type ScalarsOk = Expect<
  Equal<
    Scalars,
    { s: string; i: number; n?: number; b: boolean; z: null; e: 'a' | 'b'; c: 3; ns: string | null; j: JsonValueType }
  >
>;

// ---- containers and unions ----
type Containers = InferArgs<{
  list: { type: 'array'; items: { type: 'string' }; required: true };
  anyList: { type: 'array'; required: true };
  obj: {
    type: 'object';
    additionalProperties: false;
    properties: { x: { type: 'integer'; required: true } };
    required: true;
  };
  bag: { type: 'object'; additionalProperties: true; required: true };
  either: { anyOf: readonly [{ type: 'string' }, { type: 'boolean' }]; required: true };
  oneOrNull: { oneOf: readonly [{ type: 'integer' }]; nullable: true; required: true };
}>;
export type ContainersOk = Expect<
  Equal<
    Containers,
    {
      list: string[];
      anyList: JsonValueType[];
      obj: { x: number };
      bag: { [key: string]: JsonValueType };
      either: string | boolean;
      oneOrNull: number | null;
    }
  >
>;

// ---- output inference ----
export type OutputOk = Expect<
  Equal<
    InferNode<{
      type: 'object';
      additionalProperties: false;
      properties: { ids: { type: 'array'; items: { type: 'integer' }; required: true } };
    }>,
    { ids: number[] }
  >
>;

// ---- depth: 16 container levels typed, the 17th is JsonValue ----
type Leaf = { type: 'string'; required: true };
/** `N` nested single-property objects around a string leaf. */
type NestObjects<N extends number, Acc extends unknown[] = [], T = Leaf> = Acc['length'] extends N
  ? T
  : NestObjects<
      N,
      [...Acc, unknown],
      { type: 'object'; additionalProperties: false; required: true; properties: { n: T } }
    >;
/** `N` nested arrays around a string leaf. */
type NestArrays<N extends number, Acc extends unknown[] = [], T = { type: 'string' }> = Acc['length'] extends N
  ? T
  : NestArrays<N, [...Acc, unknown], { type: 'array'; items: T; required: true }>;
/** The value type `N` levels of `{ n: … }` below the root. */
type Dig<T, N extends number, Acc extends unknown[] = []> = Acc['length'] extends N
  ? T
  : T extends { n: infer C }
    ? Dig<C, N, [...Acc, unknown]>
    : never;
type Unwrap<T, N extends number, Acc extends unknown[] = []> = Acc['length'] extends N
  ? T
  : T extends (infer E)[]
    ? Unwrap<E, N, [...Acc, unknown]>
    : never;

export type DepthIsSixteen = Expect<Equal<MaxInferenceDepth, 16>>;
// Root + 15 nested objects = 16 containers: all typed, down to the string leaf.
type Args16 = InferArgs<{ n: NestObjects<15> }>;
export type SixteenObjectsTyped = Expect<Equal<Dig<Args16, 16>, string>>;
export type FifteenthIsObject = Expect<Equal<Dig<Args16, 15>, { n: string }>>;
// Root + 16 nested objects = 17 containers: the 17th falls back to JsonValue.
type Args17 = InferArgs<{ n: NestObjects<16> }>;
export type SeventeenthIsJson = Expect<Equal<Dig<Args17, 16>, JsonValueType>>;
export type SixteenthStillTyped = Expect<Equal<Dig<Args17, 15> extends { n: JsonValueType } ? true : false, true>>;
// Arrays count as containers too: root + 15 arrays typed, root + 16 arrays not.
export type FifteenArraysTyped = Expect<Equal<Unwrap<InferArgs<{ a: NestArrays<15> }>['a'], 15>, string>>;
export type SixteenArraysCut = Expect<Equal<Unwrap<InferArgs<{ a: NestArrays<16> }>['a'], 15>, JsonValueType>>;
// For an output value (no implicit root) 16 containers are typed as well.
export type OutputSixteen = Expect<Equal<Unwrap<InferNode<NestArrays<16>>, 16>, string>>;
export type OutputSeventeen = Expect<Equal<Unwrap<InferNode<NestArrays<17>>, 16>, JsonValueType>>;

// ---- defineTool wires the inference into execute, render and callbacks ----
const typed = defineTool({
  name: 'typed',
  description: 'd',
  parameters: {
    q: { type: 'string', required: true },
    limit: { type: 'integer' },
    mode: { type: 'string', enum: ['fast', 'slow'], required: true },
  },
  output: {
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: { hits: { type: 'array', items: { type: 'string' }, required: true } },
    },
    render: (args, value) => {
      const mode: 'fast' | 'slow' = args.mode;
      // @ts-expect-error `hits` is string[], not a string
      const wrong: string = value.hits;
      return text(`${mode}:${value.hits.join(',')}:${String(wrong)}`);
    },
  },
  isConcurrencySafe: (args) => args.mode === 'fast',
  execute: (args) => {
    const q: string = args.q;
    const limit: number | undefined = args.limit;
    // @ts-expect-error `limit` is optional, so it may be undefined
    const strictLimit: number = args.limit;
    // @ts-expect-error `mode` is 'fast' | 'slow', not any string
    const anyMode: 'medium' = args.mode;
    void strictLimit;
    void anyMode;
    return { hits: [q].slice(0, limit ?? 10) };
  },
});

// ---- a body may return frozen (readonly) JSON where the schema allows it ----
const passThrough = defineTool({
  name: 'pass-through',
  description: 'd',
  parameters: { payload: { type: 'json', required: true } },
  output: { schema: { type: 'json' }, render: () => [] },
  execute: (_args, exec) => exec.arguments, // a readonly JsonValue
});
const wrapped = defineTool({
  name: 'wrapped',
  description: 'd',
  parameters: {},
  output: {
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: { items: { type: 'array', items: { type: 'json' }, required: true } },
    },
    render: (_args, value) => text(String(value.items.length)),
  },
  execute: (_args, exec) => ({ items: [exec.arguments] as const }),
});
defineTool({
  name: 'still-checked',
  description: 'd',
  parameters: {},
  output: {
    schema: { type: 'object', additionalProperties: false, properties: { n: { type: 'integer', required: true } } },
    render: () => [],
  },
  // @ts-expect-error readonly is accepted, a wrong type is not
  execute: () => ({ n: 'one' }) as const,
});

describe('argument inference', () => {
  it('matches what the body receives at run time', async () => {
    const rt = createToolRuntime();
    rt.register(typed);
    const result = await rt.execute(call('typed', { q: 'x', mode: 'fast' }));
    expect(result.value).toEqual({ hits: ['x'] });
    expect(result.content).toEqual(text('fast:x:x'));
  });

  it('bodies returning frozen JSON (the arguments) work at run time too', async () => {
    const rt = createToolRuntime();
    rt.register(passThrough);
    rt.register(wrapped);
    expect((await rt.execute(call('pass-through', { payload: [1] }))).value).toEqual({ payload: [1] });
    expect((await rt.execute(call('wrapped', { x: 1 }))).value).toEqual({ items: [{ x: 1 }] });
  });

  it('a body that breaks the output type is a compile error and, at run time, INVALID_TOOL_OUTPUT', async () => {
    const rt = createToolRuntime();
    rt.register(
      defineTool({
        name: 'bad-output',
        description: 'd',
        parameters: {},
        output: { schema: { type: 'integer' }, render: () => [] },
        // @ts-expect-error the body must return the output type (a number)
        execute: () => 'not a number',
      }),
    );
    expect((await rt.execute(call('bad-output', {}))).error?.code).toBe('INVALID_TOOL_OUTPUT');
  });

  it('a missing output schema is a compile error and, at run time, a DefinitionError', () => {
    expect(() =>
      defineTool({
        name: 'missing-output',
        description: 'd',
        parameters: {},
        // @ts-expect-error `output.schema` is required
        output: { render: () => [] },
        execute: () => null,
      }),
    ).toThrow(DefinitionError);
  });
});
