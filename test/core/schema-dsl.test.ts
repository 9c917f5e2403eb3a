// The schema DSL: what each node accepts, what it compiles to, and every
// way a definition is refused (keyword and path named, depth and cycles bounded).
import { describe, expect, it } from '@jest/globals';
import {
  createToolRuntime,
  defineJsonSchemaTool,
  defineTool,
  DefinitionError,
  MAX_SCHEMA_DEPTH,
  type SchemaNode,
} from '../../src/index.ts';
import { call, text } from './helpers.ts';

/** A tool whose output schema is `schema`, so `outputIssues` exercises one node. */
const withOutput = (schema: SchemaNode) =>
  defineTool({
    name: 'n',
    description: 'd',
    parameters: {},
    output: { schema, render: () => text('x') },
    execute: () => null as never,
  });
const accepts = (schema: SchemaNode, value: unknown): boolean =>
  withOutput(schema).outputIssues(value as never).length === 0;

const defineError = (define: () => unknown): DefinitionError => {
  try {
    define();
  } catch (error) {
    if (error instanceof DefinitionError) return error;
    throw error;
  }
  throw new Error('expected a DefinitionError');
};

describe('DSL nodes accept exactly their values', () => {
  const closed = {
    type: 'object',
    additionalProperties: false,
    properties: { a: { type: 'string', required: true }, b: { type: 'number' } },
  } as const;
  const table: ReadonlyArray<readonly [string, SchemaNode, readonly unknown[], readonly unknown[]]> = [
    ['string', { type: 'string' }, ['', 'x'], [1, null, true, [], {}]],
    ['nullable string', { type: 'string', nullable: true }, ['x', null], [1]],
    ['string enum', { type: 'string', enum: ['a', 'b'] }, ['a', 'b'], ['c', null]],
    ['nullable string enum', { type: 'string', enum: ['a'], nullable: true }, ['a', null], ['b']],
    ['string const', { type: 'string', const: 'x' }, ['x'], ['y', null]],
    ['nullable string const', { type: 'string', const: 'x', nullable: true }, ['x', null], ['y']],
    [
      'string length and pattern',
      { type: 'string', minLength: 2, maxLength: 3, pattern: '^a' },
      ['ab', 'abc'],
      ['a', 'abcd', 'bb'],
    ],
    ['number', { type: 'number' }, [0, -1.5, 1e300], ['1', null]],
    ['number bounds', { type: 'number', minimum: 0, exclusiveMaximum: 10, multipleOf: 2 }, [0, 8], [-2, 10, 3]],
    ['integer', { type: 'integer', exclusiveMinimum: 0, maximum: 3 }, [1, 3], [0, 1.5, 4]],
    ['nullable number const', { type: 'number', const: 3, nullable: true }, [3, null], [4]],
    ['boolean', { type: 'boolean' }, [true, false], [0, 'true']],
    ['boolean const', { type: 'boolean', const: true }, [true], [false]],
    ['null', { type: 'null' }, [null], [0, '']],
    [
      'array of strings',
      { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 },
      [['a'], ['a', 'b']],
      [[], ['a', 'b', 'c'], [1]],
    ],
    ['unique array', { type: 'array', uniqueItems: true }, [[1, 2]], [[1, 1]]],
    ['array without items', { type: 'array' }, [[], [1, 'a', null, {}]], [{}]],
    ['closed object', closed, [{ a: 'x' }, { a: 'x', b: 1 }], [{}, { a: 'x', c: 1 }, { a: 1 }, []]],
    ['open object', { ...closed, additionalProperties: true }, [{ a: 'x', c: 1 }], [{ c: 1 }]],
    [
      'object size',
      { type: 'object', additionalProperties: true, minProperties: 1, maxProperties: 1 },
      [{ a: 1 }],
      [{}, { a: 1, b: 2 }],
    ],
    ['json', { type: 'json' }, [null, true, 1, 'x', [], [1, [2]], {}, { a: { b: [null] } }], []],
    ['anyOf', { anyOf: [{ type: 'string' }, { type: 'integer' }] }, ['x', 2], [1.5, null]],
    ['nullable oneOf', { oneOf: [{ type: 'string' }, { type: 'boolean' }], nullable: true }, ['x', true, null], [1]],
    [
      'nullable oneOf whose member accepts null too',
      { oneOf: [{ type: 'string', nullable: true }, { type: 'integer' }], nullable: true },
      ['x', 1, null],
      [1.5],
    ],
    [
      'nested object',
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          o: {
            type: 'object',
            additionalProperties: false,
            properties: { n: { type: 'null', required: true } },
            required: true,
          },
        },
      },
      [{ o: { n: null } }],
      [{ o: {} }, { o: { n: null, x: 1 } }],
    ],
    [
      'Object.prototype names as properties',
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          constructor: { type: 'number', required: true },
          toString: { type: 'string' },
          valueOf: { type: 'boolean' },
        },
      } as const,
      [{ constructor: 1 }, { constructor: 1, toString: 'x', valueOf: true }],
      [{}, { toString: 'x' }, { constructor: 1, valueOf: 1 }],
    ],
  ];

  it.each(table)('%s', (_label, schema, good, bad) => {
    for (const v of good) expect([v, accepts(schema, v)]).toEqual([v, true]);
    for (const v of bad) expect([v, accepts(schema, v)]).toEqual([v, false]);
  });
});

describe('DSL compiles to plain JSON Schema', () => {
  const table: ReadonlyArray<readonly [string, SchemaNode, unknown]> = [
    ['json is annotation-only', { type: 'json', description: 'anything' }, { description: 'anything' }],
    ['nullable becomes a type array', { type: 'string', nullable: true }, { type: ['string', 'null'] }],
    [
      'nullable enum lists null',
      { type: 'integer', enum: [1], nullable: true },
      { type: ['integer', 'null'], enum: [1, null] },
    ],
    [
      'required flags become a required array',
      {
        type: 'object',
        additionalProperties: false,
        properties: { a: { type: 'string', required: true }, b: { type: 'string', required: false } },
      },
      {
        type: 'object',
        additionalProperties: false,
        properties: { a: { type: 'string' }, b: { type: 'string' } },
        required: ['a'],
      },
    ],
    [
      'nullable anyOf gains a null member',
      { anyOf: [{ type: 'string' }], nullable: true },
      { anyOf: [{ type: 'string' }, { type: 'null' }] },
    ],
    [
      'nullable oneOf is wrapped, not extended',
      { oneOf: [{ type: 'string' }], nullable: true },
      { anyOf: [{ oneOf: [{ type: 'string' }] }, { type: 'null' }] },
    ],
  ];
  it.each(table)('%s', (_label, schema, expected) => {
    expect(withOutput(schema).outputSchema).toEqual(expected);
  });

  it('compiles the parameter map to an open object root with required names', () => {
    const tool = defineTool({
      name: 'p',
      description: 'd',
      parameters: { q: { type: 'string', required: true, description: 'query' }, n: { type: 'integer' } },
      output: { schema: { type: 'json' }, render: () => text('x') },
      execute: () => null,
    });
    expect(tool.parameters).toEqual({
      type: 'object',
      additionalProperties: true,
      properties: { q: { type: 'string', description: 'query' }, n: { type: 'integer' } },
      required: ['q'],
    });
  });
});

describe('open root and json nodes at run time', () => {
  it('accepts unknown extra fields at the root, and json nodes in parameters and output', async () => {
    const rt = createToolRuntime();
    rt.register(
      defineTool({
        name: 'store',
        description: 'd',
        parameters: { key: { type: 'string', required: true }, payload: { type: 'json', required: true } },
        output: { schema: { type: 'json' }, render: (_a, v) => text(JSON.stringify(v)) },
        execute: (args) => ({ seen: args }),
      }),
    );
    const payloads = [null, 1, 'x', [1, { a: [] }], { deep: { er: [true] } }];
    for (const payload of payloads) {
      const result = await rt.execute(call('store', { key: 'k', payload, extra: 'kept' }));
      expect(result.isError).toBe(false);
      expect(result.value).toEqual({ seen: { key: 'k', payload, extra: 'kept' } });
    }
    const missing = await rt.execute(call('store', { key: 'k' }));
    expect(missing.error?.code).toBe('INVALID_ARGS');
  });

  it('still refuses extra fields inside a closed nested object', async () => {
    const rt = createToolRuntime();
    rt.register(
      defineTool({
        name: 'nested',
        description: 'd',
        parameters: { o: { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } } },
        output: { schema: { type: 'json' }, render: () => text('x') },
        execute: () => 'ran',
      }),
    );
    const result = await rt.execute(call('nested', { o: { a: 'x', b: 1 } }));
    expect(result.error?.code).toBe('INVALID_ARGS');
    expect(result.error?.message).toContain('/o');
  });
});

describe('unsupported schemas are refused at definition time (UNSUPPORTED_SCHEMA, path and keyword named)', () => {
  const table: ReadonlyArray<readonly [string, Record<string, unknown>, string, string]> = [
    ['format keyword', { type: 'string', format: 'email' }, 'parameters.properties["p"].format', '"format"'],
    ['$ref', { $ref: '#/x' }, 'parameters.properties["p"].$ref', '"$ref"'],
    ['allOf', { type: 'string', allOf: [] }, 'parameters.properties["p"].allOf', '"allOf"'],
    ['not', { type: 'string', not: {} }, 'parameters.properties["p"].not', '"not"'],
    [
      'patternProperties',
      { type: 'object', additionalProperties: false, patternProperties: {} },
      'parameters.properties["p"].patternProperties',
      '"patternProperties"',
    ],
    [
      'keyword of another type',
      { type: 'number', minLength: 1 },
      'parameters.properties["p"].minLength',
      '"minLength"',
    ],
    [
      'nested object without additionalProperties',
      { type: 'object', properties: {} },
      'parameters.properties["p"].additionalProperties',
      'additionalProperties: true',
    ],
    [
      'additionalProperties as a schema',
      { type: 'object', additionalProperties: { type: 'string' } },
      'parameters.properties["p"].additionalProperties',
      'additionalProperties',
    ],
    [
      'deep nested object without additionalProperties',
      { type: 'array', items: { type: 'object', additionalProperties: true, properties: { x: { type: 'object' } } } },
      'parameters.properties["p"].items.properties["x"].additionalProperties',
      'explicitly',
    ],
    [
      'a required array instead of required flags',
      { type: 'object', additionalProperties: false, required: ['a'], properties: { a: { type: 'string' } } },
      'parameters.properties["p"]',
      'required',
    ],
    ['missing type', { description: 'x' }, 'parameters.properties["p"]', 'type: "json"'],
    ['type array', { type: ['string', 'null'] }, 'parameters.properties["p"].type', 'nullable'],
    ['unknown type', { type: 'date' }, 'parameters.properties["p"].type', '"date"'],
    ['empty enum', { type: 'string', enum: [] }, 'parameters.properties["p"].enum', 'non-empty'],
    ['invalid pattern', { type: 'string', pattern: '(' }, 'parameters.properties["p"].pattern', 'regular expression'],
    ['non-numeric bound', { type: 'string', minLength: '1' }, 'parameters.properties["p"].minLength', 'finite number'],
    ['tuple items', { type: 'array', items: [{ type: 'string' }] }, 'parameters.properties["p"].items', 'tuple'],
    ['non-string description', { type: 'string', description: 1 }, 'parameters.properties["p"].description', 'string'],
    [
      'non-boolean required',
      { type: 'string', required: 'yes' },
      'parameters.properties["p"].required',
      'true or false',
    ],
    [
      'a property named __proto__ (ajv cannot validate it)',
      { type: 'object', additionalProperties: true, properties: JSON.parse('{"__proto__":{"type":"string"}}') },
      'parameters.properties["p"].properties["__proto__"]',
      'choose another name',
    ],
    ['non-boolean nullable', { type: 'string', nullable: 1 }, 'parameters.properties["p"].nullable', 'boolean'],
    ['empty union', { anyOf: [] }, 'parameters.properties["p"].anyOf', 'non-empty'],
    ['non-JSON default', { type: 'string', default: () => 1 }, 'parameters.properties["p"].default', 'function'],
    [
      'a schema that is not an object',
      'string' as unknown as Record<string, unknown>,
      'parameters.properties["p"]',
      'schema object',
    ],
  ];

  it.each(table)('%s', (_label, node, path, mention) => {
    const error = defineError(() =>
      defineTool({
        name: 't',
        description: 'd',
        parameters: { p: node as never },
        output: { schema: { type: 'json' }, render: () => [] },
        execute: () => null,
      }),
    );
    expect(error.code).toBe('UNSUPPORTED_SCHEMA');
    expect(error.message).toContain(`schema at ${path}`);
    expect(error.message).toContain(mention);
  });

  it('checks output schemas the same way', () => {
    const error = defineError(() => withOutput({ type: 'string', format: 'uri' } as never));
    expect(error.code).toBe('UNSUPPORTED_SCHEMA');
    expect(error.message).toContain('schema at output.schema.format');
  });

  it('refuses a parameters value that is not a property map', () => {
    const error = defineError(() =>
      defineTool({
        name: 't',
        description: 'd',
        parameters: [] as never,
        output: { schema: { type: 'json' }, render: () => [] },
        execute: () => null,
      }),
    );
    expect(error.code).toBe('UNSUPPORTED_SCHEMA');
    expect(error.message).toContain('property map');
  });
});

describe('depth and cycles', () => {
  const nestedItems = (levels: number): SchemaNode => {
    let node: SchemaNode = { type: 'string' };
    for (let i = 1; i < levels; i += 1) node = { type: 'array', items: node };
    return node;
  };
  const nestedObjects = (levels: number): SchemaNode => {
    let node: SchemaNode = { type: 'string' };
    for (let i = 1; i < levels; i += 1) node = { type: 'object', additionalProperties: false, properties: { n: node } };
    return node;
  };

  it(`accepts ${MAX_SCHEMA_DEPTH} levels and validates through them`, () => {
    const tool = withOutput(nestedItems(MAX_SCHEMA_DEPTH));
    let good: unknown = 'leaf';
    let bad: unknown = 1;
    for (let i = 1; i < MAX_SCHEMA_DEPTH; i += 1) {
      good = [good];
      bad = [bad];
    }
    expect(tool.outputIssues(good as never)).toEqual([]);
    expect(tool.outputIssues(bad as never)).not.toEqual([]);
  });

  it(`refuses ${MAX_SCHEMA_DEPTH + 1} levels with the path`, () => {
    const error = defineError(() => withOutput(nestedItems(MAX_SCHEMA_DEPTH + 1)));
    expect(error.code).toBe('UNSUPPORTED_SCHEMA');
    expect(error.message).toContain(`schema at output.schema${'.items'.repeat(MAX_SCHEMA_DEPTH)}:`);
    expect(error.message).toContain(`deeper than ${MAX_SCHEMA_DEPTH}`);
  });

  it.each([
    ['array items', nestedItems],
    ['object properties', nestedObjects],
  ])('refuses a 10,000-deep schema of %s cleanly (a DefinitionError, not a stack overflow)', (_label, build) => {
    const error = defineError(() =>
      defineTool({
        name: 'deep',
        description: 'd',
        parameters: { p: build(10_000) },
        output: { schema: { type: 'json' }, render: () => [] },
        execute: () => null,
      }),
    );
    expect(error.code).toBe('UNSUPPORTED_SCHEMA');
    expect(error.message).toContain('nesting deeper than');
  });

  it('detects a cycle through properties and names its path', () => {
    const node: Record<string, unknown> = { type: 'object', additionalProperties: false, properties: {} };
    (node.properties as Record<string, unknown>).self = node;
    const error = defineError(() =>
      defineTool({
        name: 'c',
        description: 'd',
        parameters: { p: node as never },
        output: { schema: { type: 'json' }, render: () => [] },
        execute: () => null,
      }),
    );
    expect(error.code).toBe('UNSUPPORTED_SCHEMA');
    expect(error.message).toBe(
      'schema at parameters.properties["p"].properties["self"]: cycle: this schema contains itself',
    );
  });

  it('detects a cycle through array items and union members', () => {
    const arr: Record<string, unknown> = { type: 'array' };
    arr.items = { anyOf: [{ type: 'string' }, arr] };
    const error = defineError(() => withOutput(arr as never));
    expect(error.message).toBe('schema at output.schema.items.anyOf[1]: cycle: this schema contains itself');
  });

  it('accepts the same node shared by siblings (a DAG is not a cycle)', () => {
    const shared: SchemaNode = { type: 'object', additionalProperties: false, properties: { v: { type: 'integer' } } };
    const tool = withOutput({
      type: 'object',
      additionalProperties: false,
      properties: { a: shared, b: { type: 'array', items: shared } },
    });
    expect(tool.outputIssues({ a: { v: 1 }, b: [{ v: 2 }] })).toEqual([]);
    expect(tool.outputIssues({ a: { v: 'x' } })).not.toEqual([]);
  });
});

describe('defineJsonSchemaTool (full JSON Schema from outside)', () => {
  const base = { name: 'raw', description: 'd', output: { render: () => text('x') }, execute: () => null };

  it('reads required arrays, treats absent additionalProperties as open and an absent output schema as any JSON', () => {
    const tool = defineJsonSchemaTool({
      ...base,
      parameters: {
        type: 'object',
        properties: { a: { type: 'string' }, o: { type: 'object', properties: {} } },
        required: ['a'],
      },
    });
    expect(tool.argIssues({ a: 'x', o: { extra: 1 } })).toEqual([]);
    expect(tool.argIssues({ o: {} })).not.toEqual([]);
    expect(tool.outputIssues([1, { b: null }])).toEqual([]);
  });

  it('accepts keywords outside the DSL subset: an unknown format is ignored, a known one is checked', () => {
    const tool = defineJsonSchemaTool({
      ...base,
      parameters: {
        type: 'object',
        properties: { a: { type: 'string', format: 'x-vendor' }, e: { type: 'string', format: 'email' } },
      },
    });
    expect(tool.argIssues({ a: 'anything', e: 'a@b.co' })).toEqual([]);
    expect(tool.argIssues({ e: 'not an email' })).toEqual([
      { path: '/e', message: 'must be an email address (format "email")' },
    ]);
    expect(tool.schemaWarnings).toEqual([]);
  });

  it('keeps a schema ajv cannot compile, unvalidated here, with a warning', () => {
    const tool = defineJsonSchemaTool({
      ...base,
      parameters: { type: 'object', properties: { a: { type: 'string', minLength: 'two' } } },
    });
    expect(tool.argIssues({ a: 1 })).toEqual([]);
    expect(tool.argIssues('not an object' as never)).not.toEqual([]);
    expect(tool.schemaWarnings).toEqual([expect.stringContaining('parameters is not validated here')]);
  });

  it.each([
    ['a non-object root', { type: 'string' }, 'root must be'],
    [
      'a remote $ref',
      { type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } },
      'parameters["properties"]["a"].$ref: keyword "$ref" points outside the schema',
    ],
    [
      'a $ref that does not resolve',
      { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
      'cannot be resolved',
    ],
    [
      'a schema nested too deep',
      { type: 'object', properties: { a: JSON.parse(`${'{"items":'.repeat(200)}{}${'}'.repeat(200)}`) as object } },
      'nested deeper than 128',
    ],
    [
      'a schema with too many values',
      { type: 'object', properties: { a: { enum: Array.from({ length: 100_001 }, (_, i) => i) } } },
      'more than 100000 JSON values',
    ],
  ])('refuses %s', (_label, parameters, mention) => {
    const error = defineError(() => defineJsonSchemaTool({ ...base, parameters }));
    expect(error.code).toBe('UNSUPPORTED_SCHEMA');
    expect(error.message).toContain(mention);
  });
});
