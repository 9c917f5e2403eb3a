// The Python SDK: stubs generated from the same schemas as the TypeScript SDK, names
// mapped where Python cannot take them, and a type check of programs against them.
import { describe, expect, it } from '@jest/globals';
import { PythonSandbox } from '../../sandbox/python/python-sandbox.ts';
import { generateSdk } from '../../sdk-gen/generate-sdk.ts';
import { generatePythonSdk } from '../../sdk-gen/python/generate-python-sdk.ts';
import type { ToolSchema } from '../../sdk-gen/tool-schema.ts';

const orderSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['open', 'shipped'] },
    total: { type: 'number', minimum: 0 },
    notes: { type: 'string', description: 'Free text' },
  },
  required: ['id', 'status', 'total'],
};

const tools: ToolSchema[] = [
  {
    name: 'list_orders',
    description: 'List one customer\'s orders. """quoted""" and a \\ backslash.',
    parameters: {
      type: 'object',
      properties: {
        customer_id: { type: 'string', minLength: 1, description: 'The customer' },
        from: { type: 'string', format: 'date' },
        'page-size': { type: 'integer', maximum: 100, default: 20 },
      },
      required: ['customer_id'],
    },
    outputSchema: { type: 'array', items: orderSchema },
  },
  {
    name: 'get_order',
    description: 'One order.',
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    outputSchema: orderSchema,
  },
  {
    name: 'print',
    description: 'A tool whose name is a Python built-in.',
    parameters: {
      type: 'object',
      properties: { 'x-y': { type: 'object', properties: { 'a-b': { type: 'integer' } } } },
    },
  },
  { name: 'odd-name', description: 'Not an identifier.', parameters: { type: 'object', properties: {} } },
];

const sdk = generatePythonSdk(tools);

describe('Python stubs', () => {
  it('keyword-only functions, TypedDicts, Literal enums, constraints in docstrings', () => {
    expect(sdk.text).toContain(
      'def list_orders(*, customer_id: str, from_: str | None = None, page_size: int | None = None) -> list[Order]:',
    );
    expect(sdk.text).toContain('def get_order(*, id: str) -> Order:');
    expect(sdk.text).toMatch(
      /class Order\(TypedDict\):\n {4}id: str\n {4}status: Literal\["open", "shipped"\]\n {4}total: float {2}# minimum 0\n {4}notes: NotRequired\[str\] {2}# Free text/,
    );
    expect(sdk.text).toContain('customer_id: The customer; minLength 1');
    expect(sdk.text).toContain('from_: sent as "from". format "date"');
    expect(sdk.text).toContain('page_size: sent as "page-size". maximum 100, default 20');
  });

  it('declares a shared output type once', () => {
    expect(sdk.text.match(/class Order\(TypedDict\)/g)).toHaveLength(1);
  });

  it('maps names Python cannot take and says what they are sent as', () => {
    expect(sdk.functions.print_).toEqual({ tool: 'print', parameters: { x_y: { wire: 'x-y', noneOmits: true } } });
    expect(sdk.functions.odd_name?.tool).toBe('odd-name');
    expect(sdk.functions.list_orders?.parameters.from_).toEqual({ wire: 'from', noneOmits: true });
    expect(sdk.functions.list_orders?.parameters.customer_id).toEqual({ wire: 'customer_id', noneOmits: false });
    // A key that is not an identifier: the functional TypedDict syntax keeps it as it is.
    expect(sdk.text).toContain('"a-b": NotRequired[int],');
  });

  it('keeps a description from closing its docstring', () => {
    expect(sdk.text).toContain('""\\"quoted""\\" and a \\\\ backslash.');
  });

  it('is deterministic', () => {
    expect(generatePythonSdk([...tools].reverse()).text).toBe(sdk.text);
  });
});

describe("type check against the stubs (Monty's checker)", () => {
  it('accepts a correct program and reports mistakes at their line in the program', async () => {
    const python = await PythonSandbox.create();
    const ok = await python.typeCheck(
      'orders = list_orders(customer_id="c1")\nreturn sum(o["total"] for o in orders)',
      sdk.typeCheckPrefix,
    );
    expect(ok).toEqual({ ok: true, diagnostics: [] });
    const bad = await python.typeCheck(
      'x = 1\norders = list_orders(customer="c1")\norders[0]["nope"]',
      sdk.typeCheckPrefix,
    );
    expect(bad.ok).toBe(true);
    const found = bad.ok ? bad.diagnostics : [];
    expect(found.map((d) => [d.line, d.message.split(']')[0]])).toEqual([
      [2, 'error[missing-argument'],
      [2, 'error[unknown-argument'],
      [3, 'error[invalid-key'],
    ]);
    await python.close();
  });
});

describe('constraints in the Python stubs', () => {
  // Every keyword either SDK shows, on properties and on an array's items.
  const everyConstraint: ToolSchema = {
    name: 'book',
    description: 'Books a thing.',
    parameters: {
      type: 'object',
      properties: {
        a: {
          type: 'string',
          format: 'email',
          minLength: 3,
          maxLength: 80,
          pattern: '^a',
          not: { const: 'aaa' },
          default: 'abc',
          deprecated: true,
        },
        b: {
          type: 'object',
          minProperties: 1,
          maxProperties: 9,
          propertyNames: { pattern: '^[a-z]+$' },
          patternProperties: { '^x': { type: 'string' } },
          if: { required: ['p'] },
          then: { required: ['q'] },
          else: { required: ['z'] },
          dependentRequired: { p: ['q'] },
          dependentSchemas: { p: { required: ['r'] } },
        },
        c: {
          type: 'array',
          minItems: 1,
          maxItems: 5,
          uniqueItems: true,
          contains: { const: 4 },
          minContains: 1,
          maxContains: 3,
          items: { type: 'integer', minimum: 0, exclusiveMinimum: -1, maximum: 9, exclusiveMaximum: 10, multipleOf: 2 },
        },
      },
    },
  };

  it('carry every constraint the TypeScript SDK shows, in its order, items included', () => {
    const ts = generateSdk([everyConstraint]);
    const python = generatePythonSdk([everyConstraint]).text;
    for (const property of ['a', 'b', 'c']) {
      const tags = new RegExp(`/\\*\\*((?:(?!\\*/).)*)\\*/ ${property}\\?:`).exec(ts)?.[1] ?? '';
      const tsKeywords = [...tags.matchAll(/@([\w.]+)/g)].map((m) => m[1]);
      const note = new RegExp(`^ {8}${property}: (.*)$`, 'm').exec(python)?.[1] ?? '';
      const pyKeywords = [...note.matchAll(/(?:^|, )([\w.]+) /g)].map((m) => m[1]);
      expect(tsKeywords.length).toBeGreaterThan(4);
      expect(pyKeywords).toEqual(tsKeywords);
    }
    expect(python).toContain('dependentRequired {"p":["q"]}');
    expect(python).toContain('items.multipleOf 2');
  });
});
