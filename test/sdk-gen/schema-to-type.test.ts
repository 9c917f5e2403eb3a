// The JSON Schema → TypeScript mapping, as exact text. Each row is a
// rule; read the table as the mapping's documentation.
import { describe, expect, it } from '@jest/globals';
import { checkProgram } from '../../sdk-gen/index.ts';
import { schemaToType } from '../../sdk-gen/schema-to-type.ts';
import { SDK_PREAMBLE } from '../../sdk-gen/sdk-preamble.ts';

const OPEN = 'Record<string, JsonValue>';

const cases: ReadonlyArray<readonly [rule: string, schema: unknown, expected: string]> = [
  // Scalars
  ['string', { type: 'string' }, 'string'],
  ['integer is number', { type: 'integer' }, 'number'],
  ['number', { type: 'number' }, 'number'],
  ['boolean', { type: 'boolean' }, 'boolean'],
  ['null', { type: 'null' }, 'null'],
  [
    'validation keywords do not change the type (they are doc tags on properties)',
    { type: 'string', minLength: 1, format: 'email', pattern: '^a' },
    'string',
  ],
  // Literals
  ['enum → literal union', { enum: ['a', 'b', 1, true, null] }, '"a" | "b" | 1 | true | null'],
  ['enum wins over type', { type: 'string', enum: ['x', 'y'] }, '"x" | "y"'],
  ['const string', { const: 'fixed' }, '"fixed"'],
  ['const negative number', { const: -1.5 }, '-1.5'],
  ['empty enum admits nothing', { enum: [] }, 'never'],
  ['object/array literals are typed as JSON', { enum: [{ a: 1 }, 'x'] }, 'JsonValue'],
  [
    'literals are escaped strings',
    { enum: ['a"b', 'line\nbreak', 'back\\slash', '\u2028'] },
    '"a\\"b" | "line\\nbreak" | "back\\\\slash" | "\\u2028"',
  ],
  // Unions
  ['anyOf → union', { anyOf: [{ type: 'string' }, { type: 'number' }] }, 'string | number'],
  [
    'oneOf → union, repeats collapse',
    { oneOf: [{ type: 'string' }, { type: 'string' }, { type: 'integer' }, { type: 'number' }] },
    'string | number',
  ],
  [
    'nested unions flatten',
    { anyOf: [{ anyOf: [{ type: 'string' }, { type: 'null' }] }, { type: 'boolean' }] },
    'string | null | boolean',
  ],
  ['a member without type absorbs the union', { anyOf: [{ type: 'string' }, {}] }, 'JsonValue'],
  ['type list → union', { type: ['string', 'number', 'integer'] }, 'string | number'],
  ['type list with array uses items', { type: ['string', 'array'], items: { type: 'number' } }, 'string | number[]'],
  [
    'refinement members add nothing to an own type',
    { type: 'string', anyOf: [{ minLength: 1 }, { format: 'uri' }] },
    'string',
  ],
  [
    'allOf → intersection',
    {
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false },
        { type: 'object', properties: { b: { type: 'number' } }, required: ['b'], additionalProperties: false },
      ],
    },
    '{ a: string } & { b: number }',
  ],
  [
    'own type & union',
    {
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
      oneOf: [
        { type: 'object', properties: { kind: { const: 'a' } }, additionalProperties: false },
        { type: 'object', properties: { kind: { const: 'b' } }, additionalProperties: false },
      ],
    },
    '{ id: string } & ({ kind?: "a" } | { kind?: "b" })',
  ],
  [
    'anyOf required-only members refine, adding nothing',
    {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
    },
    `{ a?: string; b?: string } & ${OPEN}`,
  ],
  // Nullable
  ['type [T, "null"] → T | null', { type: ['string', 'null'] }, 'string | null'],
  ['nullable: true → | null', { type: 'integer', nullable: true }, 'number | null'],
  ['nullable enum', { enum: ['a'], nullable: true }, '"a" | null'],
  ['nullable does not repeat null', { type: ['string', 'null'], nullable: true }, 'string | null'],
  ['anyOf with a null member', { anyOf: [{ type: 'string' }, { type: 'null' }] }, 'string | null'],
  [
    'nullable open object',
    { type: 'object', properties: { a: { type: 'string' } }, nullable: true },
    `{ a?: string } & ${OPEN} | null`,
  ],
  // Arrays
  ['array of items', { type: 'array', items: { type: 'string' } }, 'string[]'],
  ['array without items', { type: 'array' }, 'JsonValue[]'],
  ['items implies array', { items: { type: 'boolean' } }, 'boolean[]'],
  ['union items are parenthesized', { type: 'array', items: { type: ['string', 'number'] } }, '(string | number)[]'],
  [
    'open object items are parenthesized',
    { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } },
    `({ a: string } & ${OPEN})[]`,
  ],
  ['array of arrays', { type: 'array', items: { type: 'array', items: { type: 'number' } } }, 'number[][]'],
  ['tuples are JSON arrays', { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] }, 'JsonValue[]'],
  ['draft-07 tuples are JSON arrays', { type: 'array', items: [{ type: 'string' }] }, 'JsonValue[]'],
  ['items: false', { type: 'array', items: false }, 'never[]'],
  // Objects
  [
    'required vs optional, open by default',
    {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' } },
      required: ['a'],
    },
    `{ a: string; b?: number } & ${OPEN}`,
  ],
  [
    'additionalProperties: true is open',
    { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
    `{ a?: string } & ${OPEN}`,
  ],
  [
    'closed object',
    { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false },
    '{ a: string }',
  ],
  ['open empty object', { type: 'object' }, OPEN],
  ['closed empty object', { type: 'object', additionalProperties: false }, 'Record<string, never>'],
  [
    'typed additionalProperties → Record',
    { type: 'object', additionalProperties: { type: 'number' } },
    'Record<string, number>',
  ],
  [
    'typed additionalProperties next to properties stays JsonValue',
    {
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: { type: 'number' },
    },
    `{ a?: string } & ${OPEN}`,
  ],
  [
    'patternProperties opens a closed object',
    {
      type: 'object',
      properties: { a: { type: 'string' } },
      patternProperties: { '^x-': {} },
      additionalProperties: false,
    },
    `{ a?: string } & ${OPEN}`,
  ],
  ['properties imply object', { properties: { a: { type: 'string' } }, additionalProperties: false }, '{ a?: string }'],
  [
    'required name without a schema holds JSON',
    { type: 'object', required: ['id', 'id'], additionalProperties: false },
    '{ id: JsonValue }',
  ],
  [
    'names that are not identifiers are quoted',
    {
      type: 'object',
      properties: {
        'x-y': { type: 'string' },
        '3d': { type: 'string' },
        new: { type: 'string' },
        'a"b': { type: 'string' },
        delete: { type: 'string' },
      },
      additionalProperties: false,
    },
    '{ "x-y"?: string; "3d"?: string; "new"?: string; "a\\"b"?: string; delete?: string }',
  ],
  [
    'an optional property named like an inherited member also admits that member (so it can be omitted)',
    {
      type: 'object',
      properties: { toString: { type: 'string' }, id: { type: 'string' } },
      additionalProperties: false,
    },
    '{ toString?: string | Object["toString"]; id?: string }',
  ],
  [
    'a required property named like an inherited member stays exact',
    { type: 'object', properties: { valueOf: { type: 'number' } }, required: ['valueOf'], additionalProperties: false },
    '{ valueOf: number }',
  ],
  [
    '__proto__ is an ordinary property',
    JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"],"additionalProperties":false}',
    ),
    '{ __proto__: string }',
  ],
  [
    'descriptions become one-line doc comments',
    {
      type: 'object',
      properties: {
        q: { type: 'string', description: '  Free-text\n\tquery.  ' },
        limit: { type: 'integer', description: 'Ends */ here' },
        raw: { type: 'boolean' },
      },
      required: ['q'],
      additionalProperties: false,
    },
    '{ /** Free-text query. */ q: string; /** Ends *\\/ here */ limit?: number; raw?: boolean }',
  ],
  [
    'nested documented objects stay on one line',
    {
      type: 'object',
      properties: {
        outer: {
          type: 'object',
          properties: { inner: { type: 'string', description: 'Inner.' } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    '{ outer?: { /** Inner. */ inner?: string } }',
  ],
  [
    'blank descriptions add nothing',
    { type: 'object', properties: { a: { type: 'string', description: ' \n ' } }, additionalProperties: false },
    '{ a?: string }',
  ],
  // No type, unsupported
  ['no type → JsonValue', {}, 'JsonValue'],
  ['annotations only → JsonValue', { description: 'anything', title: 'Any', default: 1 }, 'JsonValue'],
  ['true → JsonValue', true, 'JsonValue'],
  ['false → never', false, 'never'],
  ['not is ignored', { not: { type: 'string' } }, 'JsonValue'],
  ['an unresolved $ref → JsonValue (with a note)', { $ref: '#/$defs/Order' }, 'JsonValue'],
  ['a remote $ref → JsonValue (with a note)', { $ref: 'https://example.com/order.json' }, 'JsonValue'],
  ['$dynamicRef → JsonValue (with a note)', { $dynamicRef: '#node' }, 'JsonValue'],
  [
    'a local $ref is followed (in place without a naming context)',
    { $defs: { id: { type: 'string' } }, $ref: '#/$defs/id' },
    'string',
  ],
  [
    'a $ref to an $anchor',
    {
      $defs: { id: { $anchor: 'ident', type: 'integer' } },
      type: 'object',
      properties: { a: { $ref: '#ident' } },
      additionalProperties: false,
    },
    '{ a?: number }',
  ],
  ['unknown type name → unknown', { type: 'date' }, 'unknown'],
  ['empty type list → unknown', { type: [] }, 'unknown'],
  ['an unknown member makes the union unknown', { anyOf: [{ type: 'string' }, { type: 'date' }] }, 'unknown'],
  [
    'a $ref to the root that closes a cycle in place is unknown',
    { anyOf: [{ type: 'string' }, { $ref: '#' }] },
    'unknown',
  ],
  ['malformed properties → unknown', { type: 'object', properties: [] }, 'unknown'],
  ['malformed enum → unknown', { enum: 'a' }, 'unknown'],
  ['malformed anyOf → unknown', { anyOf: 'a' }, 'unknown'],
  ['a schema that is not an object → unknown', null, 'unknown'],
  ['inherited keywords are not keywords', Object.create({ type: 'string' }) as unknown, 'JsonValue'],
];

describe('schemaToType', () => {
  it.each(cases)('%s', (_rule, schema, expected) => {
    expect(schemaToType(schema, 16)).toBe(expected);
  });

  it('gives text that is a valid TypeScript type for every row', () => {
    const declarations = cases.map(([, schema], index) => `type Case${index} = ${schemaToType(schema, 16)};`);
    // checkProgram throws when the declarations do not type-check.
    expect(checkProgram(`${SDK_PREAMBLE}\n${declarations.join('\n')}\n`, '')).toEqual([]);
  });

  it('renders subschemas deeper than maxDepth as JsonValue', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'array', items: { type: 'object', properties: { b: { type: 'string' } } } } },
      additionalProperties: false,
    };
    expect(schemaToType(schema, 0)).toBe('{ a?: JsonValue }');
    expect(schemaToType(schema, 1)).toBe('{ a?: JsonValue[] }');
    expect(schemaToType(schema, 2)).toBe(`{ a?: ({ b?: JsonValue } & ${OPEN})[] }`);
    expect(schemaToType(schema, 3)).toBe(`{ a?: ({ b?: string } & ${OPEN})[] }`);
  });

  it('renders a schema that contains itself as unknown where the cycle closes', () => {
    const node: { type: string; properties: Record<string, unknown>; additionalProperties: boolean } = {
      type: 'object',
      properties: {},
      additionalProperties: false,
    };
    node.properties['self'] = node;
    node.properties['children'] = { type: 'array', items: node };
    expect(schemaToType(node, 16)).toBe('{ self?: unknown; children?: unknown[] }');
  });

  it('breaks cycles through unions and mutual references', () => {
    const a: Record<string, unknown> = { anyOf: [] };
    const b: Record<string, unknown> = { type: 'array', items: a };
    a['anyOf'] = [{ type: 'string' }, b];
    expect(schemaToType(a, 16)).toBe('string | unknown[]');
    expect(schemaToType(b, 16)).toBe('unknown[]');
  });

  it('expands a shared (acyclic) subschema at every use', () => {
    const money = { type: 'integer' };
    const schema = { type: 'object', properties: { a: money, b: money }, additionalProperties: false };
    expect(schemaToType(schema, 16)).toBe('{ a?: number; b?: number }');
  });

  it('does not overflow the stack on 10,000-deep schemas', () => {
    let objects: unknown = { type: 'string' };
    let unions: unknown = { type: 'string' };
    let arrays: unknown = { type: 'string' };
    for (let i = 0; i < 10_000; i++) {
      objects = { type: 'object', properties: { a: objects }, required: ['a'], additionalProperties: false };
      unions = { anyOf: [unions, { type: 'null' }] };
      arrays = { type: 'array', items: arrays };
    }
    expect(schemaToType(objects, 2)).toBe('{ a: { a: { a: JsonValue } } }');
    expect(schemaToType(unions, 2)).toBe('JsonValue');
    expect(schemaToType(arrays, 2)).toBe('JsonValue[][][]');
    expect(schemaToType(objects, 256)).toContain('{ a: JsonValue }');
  });
});
