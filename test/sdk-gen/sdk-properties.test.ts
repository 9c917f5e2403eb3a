// Property tests: for random supported schemas, random names and hostile text, the
// SDK is deterministic, type-checks, and accepts a value that the schema accepts.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { checkProgram, generateSdk } from '../../sdk-gen/index.ts';
import type { JsonSchema, ToolSchema } from '../../sdk-gen/index.ts';

type Schema = Exclude<JsonSchema, boolean>;

const hostile = fc.constantFrom(
  '*/',
  '/*',
  '`',
  '${',
  '"',
  "'",
  '\\',
  '\n',
  '\r',
  '\t',
  '\u2028',
  '\u2029',
  '\ud800',
  '\u0000',
  'é',
  '名',
  '🙂',
  ' ',
  '-',
  '_',
  '$',
  '__proto__',
  'new',
);
const text = fc.string({
  unit: fc.oneof(hostile, fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 })),
  maxLength: 8,
});
const literalValue = fc.oneof(
  text,
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);

const { schema, object } = fc.letrec<{ schema: JsonSchema; object: Schema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom<JsonSchema>(
      { type: 'string' },
      { type: 'integer' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'null' },
      {},
      true,
      { $ref: '#/x' },
    ),
    fc.record({ enum: fc.array(literalValue, { minLength: 1, maxLength: 4 }) }),
    fc.record({ const: literalValue }),
    fc.record({ type: fc.constant(['string', 'null']), description: text }),
    fc.record({ type: fc.constantFrom('string', 'integer', 'boolean'), nullable: fc.constant(true) }),
    fc.record({ type: fc.constant('array'), items: tie('schema') }),
    fc.constant({ type: 'array' }),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    tie('object'),
  ),
  object: fc
    .record({
      properties: fc.uniqueArray(fc.tuple(text, tie('schema'), fc.boolean()), {
        maxLength: 4,
        selector: ([name]) => name,
      }),
      additionalProperties: fc.constantFrom<boolean | undefined>(true, false, undefined),
      description: fc.option(text, { nil: undefined }),
    })
    .map(
      ({ properties, additionalProperties, description }): Schema => ({
        type: 'object',
        properties: Object.fromEntries(properties.map(([name, value]) => [name, value])),
        required: properties.filter(([, , required]) => required).map(([name]) => name),
        ...(additionalProperties === undefined ? {} : { additionalProperties }),
        ...(description === undefined ? {} : { description }),
      }),
    ),
}));

const toolSet = fc
  .uniqueArray(
    fc.record({
      name: text,
      description: text,
      parameters: object,
      outputSchema: fc.option(schema, { nil: undefined }),
      deferLoading: fc.boolean(),
    }),
    { maxLength: 5, selector: (tool) => tool.name },
  )
  .map((tools) =>
    tools.map(
      ({ outputSchema, ...tool }): ToolSchema => (outputSchema === undefined ? tool : { ...tool, outputSchema }),
    ),
  );

const IMPOSSIBLE = Symbol('no value satisfies the schema');

/** One JSON value that the schema accepts (for the subset generated above). */
function sample(node: unknown): unknown {
  if (node === false) return IMPOSSIBLE;
  if (typeof node !== 'object' || node === null) return null;
  const s = node as Record<string, unknown>;
  if (Object.hasOwn(s, '$ref')) return null;
  if (Object.hasOwn(s, 'const')) return s['const'];
  if (Array.isArray(s['enum'])) return s['enum'][0];
  for (const key of ['anyOf', 'oneOf']) {
    const members = s[key];
    if (Array.isArray(members)) return members.map(sample).find((value) => value !== IMPOSSIBLE) ?? IMPOSSIBLE;
  }
  const type = Array.isArray(s['type']) ? s['type'][0] : s['type'];
  switch (type) {
    case 'string':
      return 's';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array': {
      const item = s['items'] === undefined ? null : sample(s['items']);
      return item === IMPOSSIBLE ? [] : [item];
    }
    case 'object': {
      const properties = (s['properties'] ?? {}) as Record<string, unknown>;
      const value: Record<string, unknown> = {};
      for (const name of (s['required'] ?? []) as string[]) {
        const property = Object.hasOwn(properties, name) ? sample(properties[name]) : null;
        if (property === IMPOSSIBLE) return IMPOSSIBLE;
        Object.defineProperty(value, name, { value: property, enumerable: true, writable: true, configurable: true });
      }
      return value;
    }
    default:
      return null;
  }
}

// A JS expression for a JSON value; JSON.stringify escapes everything that matters,
// and "__proto__" keys are written computed so they stay ordinary properties.
function expression(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(expression).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{ ${Object.entries(value)
      .map(([key, item]) => `[${JSON.stringify(key)}]: ${expression(item)}`)
      .join(', ')} }`;
  }
  return JSON.stringify(value);
}

function shuffle<T>(items: readonly T[], seed: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = (seed + i * 7919) % (i + 1);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

describe('generateSdk on random schemas', () => {
  it('is deterministic: same text for a deep copy in any order', () => {
    fc.assert(
      fc.property(toolSet, fc.nat(), (tools, seed) => {
        expect(generateSdk(shuffle(structuredClone(tools), seed))).toBe(generateSdk(tools));
      }),
      { numRuns: 200 },
    );
  });

  it('gives declarations that type-check and accept a value each schema accepts', () => {
    fc.assert(
      fc.property(toolSet, (tools) => {
        const sdk = generateSdk(tools);
        const calls = tools
          .filter((tool) => tool.deferLoading !== true)
          .map((tool, index) => {
            const args = sample(tool.parameters);
            const call = `tools[${JSON.stringify(tool.name)}](${args === IMPOSSIBLE ? 'undefined as never' : expression(args)})`;
            return `const r${index} = await ${call};\nconsole.log(r${index});`;
          });
        expect(checkProgram(sdk, calls.join('\n'))).toEqual([]);
      }),
      { numRuns: 120 },
    );
  });
});
