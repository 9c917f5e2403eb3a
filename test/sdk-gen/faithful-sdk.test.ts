// A faithful SDK from full JSON Schema: constraints in doc comments (exact and
// injection-safe), recursive $ref as named recursive types, allOf as intersections,
// discriminated oneOf as unions, patternProperties/propertyNames as index signatures,
// and a one-line note for what cannot be typed. Exact text, and every SDK type-checks.
import { describe, expect, it } from '@jest/globals';
import { checkProgram, generateSdk, type ToolSchema } from '../../sdk-gen/index.ts';
import { SDK_PREAMBLE } from '../../sdk-gen/sdk-preamble.ts';

/** The SDK without its fixed head. */
const body = (tools: readonly ToolSchema[]): string => {
  const sdk = generateSdk(tools);
  expect(checkProgram(sdk, '')).toEqual([]);
  return sdk.slice(SDK_PREAMBLE.length + 1);
};
const tool = (parameters: ToolSchema['parameters'], outputSchema?: ToolSchema['outputSchema']): ToolSchema => ({
  name: 't',
  description: 'T.',
  parameters,
  ...(outputSchema === undefined ? {} : { outputSchema }),
});

describe('constraints in doc comments', () => {
  it('carries minimum, maxLength, format, default, pattern (and items constraints) exactly', () => {
    expect(
      body([
        tool({
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 50, default: 20, description: 'Page size.' },
            title: { type: 'string', minLength: 1, maxLength: 80 },
            email: { type: 'string', format: 'email' },
            code: { type: 'string', pattern: '^[A-Z]{3}$' },
            tags: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', maxLength: 10 } },
            unit: { enum: ['C', 'F'], default: 'C' },
            at: { type: 'string', format: 'date-time', deprecated: true },
          },
          required: ['title'],
        }),
      ]),
    ).toBe(`declare const tools: {
  /** T. */ t: Tool<{ /** Page size. @minimum 1 @maximum 50 @default 20 */ limit?: number; /** @minLength 1 @maxLength 80 */ title: string; /** @format email */ email?: string; /** @pattern "^[A-Z]{3}$" */ code?: string; /** @minItems 1 @uniqueItems true @items.maxLength 10 */ tags?: string[]; /** @default "C" */ unit?: "C" | "F"; /** @format date-time @deprecated true */ at?: string }>;
};
`);
  });

  it('shows the rules a type cannot state (not, if/then/else, dependentRequired, dependentSchemas, contains) as tags', () => {
    expect(
      body([
        tool({
          type: 'object',
          properties: {
            name: { type: 'string', not: { const: 'root' } },
            shape: {
              type: 'object',
              properties: { kind: { type: 'string' }, r: { type: 'number' } },
              if: { properties: { kind: { const: 'circle' } } },
              then: { required: ['r'] },
              else: { not: { required: ['r'] } },
            },
            card: {
              type: 'object',
              properties: { number: { type: 'string' }, cvc: { type: 'string' } },
              dependentRequired: { number: ['cvc'] },
              dependentSchemas: { cvc: { required: ['number'] } },
            },
            ids: { type: 'array', items: { type: 'integer' }, contains: { minimum: 100 }, minContains: 1 },
          },
        }),
      ]),
    ).toContain(`declare const tools: {
  /** T. */ t: Tool<{ /** @not {"const":"root"} */ name?: string; /** @if {"properties":{"kind":{"const":"circle"}}} @then {"required":["r"]} @else {"not":{"required":["r"]}} */ shape?: { kind?: string; r?: number } & Record<string, JsonValue>; /** @dependentRequired {"number":["cvc"]} @dependentSchemas {"cvc":{"required":["number"]}} */ card?: { number?: string; cvc?: string } & Record<string, JsonValue>; /** @contains {"minimum":100} @minContains 1 */ ids?: number[] }>;`);
  });

  it('is injection-safe: a */ in a pattern, format, default or description cannot close the comment, and the value decodes exactly', () => {
    const pattern = '^a*/b\\*/c$';
    const sdk = body([
      tool({
        type: 'object',
        properties: {
          p: { type: 'string', pattern, description: 'Ends */ here; */ again' },
          f: { type: 'string', format: 'x*/y' },
          d: { type: 'string', default: '*/ declare const pwned: 1; /*' },
          n: { type: 'string', pattern: 'line\nbreak\u2028sep' },
        },
      }),
    ]);
    expect(sdk).toBe(`declare const tools: {
  /** T. */ t: Tool<{ /** Ends *\\/ here; *\\/ again @pattern "^a*\\/b\\\\*\\/c$" */ p?: string; /** @format "x*\\/y" */ f?: string; /** @default "*\\/ declare const pwned: 1; /*" */ d?: string; /** @pattern "line\\nbreak\\u2028sep" */ n?: string }>;
};
`);
    // The tag is a JSON string: it decodes to the schema's pattern exactly.
    const tag = /@pattern ("(?:[^"\\]|\\.)*")/u.exec(sdk.split('\n')[1]!)![1]!;
    expect(JSON.parse(tag)).toBe(pattern);
    expect(
      checkProgram(
        generateSdk([
          tool({ type: 'object', properties: { d: { type: 'string', default: '*/ declare const pwned: 1; /*' } } }),
        ]),
        'pwned;',
      ),
    ).toEqual([expect.objectContaining({ message: "Cannot find name 'pwned'." })]);
  });

  it('cuts a huge default (with …) so it cannot flood the SDK', () => {
    const sdk = body([
      tool({ type: 'object', properties: { d: { type: 'array', default: Array.from({ length: 500 }, (_, i) => i) } } }),
    ]);
    expect(sdk).toMatch(/\/\*\* @default \[0,1,2,[0-9,]*… \*\/ d\?: JsonValue\[\] \}/u);
    expect(sdk.length).toBeLessThan(400);
  });
});

describe('recursive $ref as named recursive types', () => {
  it('names each local $ref target once; recursion, the root (#) and additionalProperties recursion type-check', () => {
    expect(
      body([
        {
          name: 'tree',
          description: 'd',
          parameters: {
            type: 'object',
            $defs: {
              node: {
                type: 'object',
                description: 'A node.',
                properties: {
                  label: { type: 'string', maxLength: 80 },
                  children: { type: 'array', items: { $ref: '#/$defs/node' } },
                },
                required: ['label'],
                additionalProperties: false,
              },
            },
            properties: { root: { $ref: '#/$defs/node' }, parent: { $ref: '#' } },
            required: ['root'],
          },
          outputSchema: {
            $ref: '#/$defs/json',
            $defs: {
              json: {
                anyOf: [
                  { type: 'string' },
                  { type: 'array', items: { $ref: '#/$defs/json' } },
                  { type: 'object', additionalProperties: { $ref: '#/$defs/json' } },
                ],
              },
            },
          },
        },
      ]),
    ).toBe(`/** A node. */ type TreeNode = { /** @maxLength 80 */ label: string; children?: TreeNode[] };
type TreeArgs = { root: TreeNode; parent?: TreeArgs };
type TreeJson = string | TreeJson[] | { [key: string]: TreeJson };
declare const tools: {
  /** d */ tree: Tool<TreeArgs, string | TreeJson[] | { [key: string]: TreeJson }>;
};
`);
  });

  it('a model program walks the recursive type', () => {
    const sdk = generateSdk([
      {
        name: 'tree',
        description: 'd',
        parameters: { type: 'object' },
        outputSchema: {
          $ref: '#/definitions/n',
          definitions: {
            n: {
              type: 'object',
              properties: { v: { type: 'number' }, kids: { type: 'array', items: { $ref: '#/definitions/n' } } },
              required: ['v', 'kids'],
              additionalProperties: false,
            },
          },
        },
      },
    ]);
    expect(
      checkProgram(
        sdk,
        `
      const t = await tools.tree({});
      const sum = (n: typeof t): number => n.v + n.kids.reduce((s, k) => s + sum(k), 0);
      return sum(t);`,
      ),
    ).toEqual([]);
    expect(checkProgram(sdk, 'const t = await tools.tree({}); return t.kids[0].label;')).toEqual([
      expect.objectContaining({ line: 1, message: "Property 'label' does not exist on type 'TreeN'." }),
    ]);
  });

  it('a cycle of bare references is unknown, a remote or dynamic reference JsonValue, each with a one-line note', () => {
    expect(
      body([
        {
          name: 'loop',
          description: 'd',
          parameters: {
            type: 'object',
            $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } },
            properties: { x: { $ref: '#/$defs/a' }, r: { $ref: 'https://x.test/s.json' }, y: { $dynamicRef: '#meta' } },
          },
        },
      ]),
    ).toBe(`type LoopA = unknown;
declare const tools: {
  // loop: $ref "https://x.test/s.json" is not followed: typed JsonValue
  // loop: $dynamicRef is not followed: typed JsonValue
  /** d */ loop: Tool<{ x?: LoopA; r?: JsonValue; y?: JsonValue }>;
};
`);
  });

  it('shows notes a tool brings (e.g. an output schema not validated) as line comments', () => {
    expect(
      body([
        {
          ...tool({ type: 'object' }),
          notes: ['output.schema is not validated here (ajv could not compile it: */ x)'],
        },
      ]),
    ).toBe(`declare const tools: {
  // t: output.schema is not validated here (ajv could not compile it: */ x)
  /** T. */ t: Tool<{}>;
};
`);
  });
});

describe('combinators and index signatures', () => {
  it('allOf is an intersection (open objects say Record once), a discriminated oneOf a union a program can narrow', () => {
    const shape = {
      type: 'object',
      allOf: [
        { properties: { unit: { enum: ['cm', 'm'] } }, required: ['unit'] },
        { properties: { precision: { type: 'integer' } } },
      ],
      properties: {
        shape: {
          oneOf: [
            {
              type: 'object',
              properties: { kind: { const: 'circle' }, radius: { type: 'number', exclusiveMinimum: 0 } },
              required: ['kind', 'radius'],
              additionalProperties: false,
            },
            {
              type: 'object',
              properties: { kind: { const: 'square' }, side: { type: 'number' } },
              required: ['kind', 'side'],
              additionalProperties: false,
            },
          ],
        },
      },
      required: ['shape'],
    };
    expect(body([tool({ type: 'object' }, shape)])).toBe(`declare const tools: {
  /** T. */ t: Tool<{}, { shape: { kind: "circle"; /** @exclusiveMinimum 0 */ radius: number } | { kind: "square"; side: number } } & { unit: "cm" | "m" } & { precision?: number } & Record<string, JsonValue>>;
};
`);
    expect(
      checkProgram(
        generateSdk([tool({ type: 'object' }, shape)]),
        `
      const r = await tools.t({});
      const area = r.shape.kind === 'circle' ? Math.PI * r.shape.radius ** 2 : r.shape.side ** 2;
      return r.unit === 'm' ? area : area / 1e4;`,
      ),
    ).toEqual([]);
  });

  it('patternProperties and propertyNames become index signatures (prefix patterns as template keys, listed names as a mapped type)', () => {
    expect(
      body([
        tool({
          type: 'object',
          properties: {
            labels: { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false },
            counts: {
              type: 'object',
              propertyNames: { pattern: '^[a-z]+$' },
              additionalProperties: { type: 'integer' },
            },
            env: {
              type: 'object',
              patternProperties: { '^[A-Z_]+$': { type: 'string' } },
              additionalProperties: false,
            },
            flags: { type: 'object', propertyNames: { enum: ['a', 'b'] }, additionalProperties: { type: 'boolean' } },
          },
        }),
      ]),
    ).toBe(`declare const tools: {
  /** T. */ t: Tool<{ /** @patternProperties ["^x-"] */ labels?: { [key: \`x-\${string}\`]: string }; /** @propertyNames {"pattern":"^[a-z]+$"} */ counts?: Record<string, number>; /** @patternProperties ["^[A-Z_]+$"] */ env?: Record<string, string>; /** @propertyNames {"enum":["a","b"]} */ flags?: { [key in "a" | "b"]?: boolean } }>;
};
`);
  });
});
