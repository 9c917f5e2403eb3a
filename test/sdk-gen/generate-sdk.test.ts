import { describe, expect, it } from '@jest/globals';
import { capDescription, checkProgram, generateSdk, MAX_DESCRIPTION_CHARS } from '../../sdk-gen/index.ts';
import type { ToolSchema } from '../../sdk-gen/index.ts';
import { fiftyTools } from './fixtures/fifty-tools.ts';

const PREAMBLE = `// A failed call throws ToolCallError. Run independent reads together with Promise.all. Globals: timers, URL, TextEncoder, atob, crypto, structuredClone; no fetch, process, require, Buffer.
type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
declare class ToolCallError extends Error { toolName: string; code: string }
type Tool<A, R = JsonValue> = (args: A, opts?: { signal?: AbortSignal }) => Promise<R>;
`;
// Only an SDK with a name that is not an identifier starts with this line.
const QUOTED_NAMES = '// Call quoted names as `tools["a-b"](args)`.\n';

const searchOrders: ToolSchema = {
  name: 'search_orders',
  description: 'Search orders.\nNewest first.',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Free text.' },
      status: { enum: ['open', 'closed'] },
      limit: { type: 'integer', minimum: 1 },
    },
    required: ['query'],
  },
  outputSchema: {
    type: 'array',
    items: {
      type: 'object',
      properties: { id: { type: 'string' }, total: { type: 'number' } },
      required: ['id', 'total'],
      additionalProperties: false,
    },
  },
};
const getWeather: ToolSchema = {
  name: 'get-weather',
  description: 'Current weather.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const translate: ToolSchema = {
  name: 'translate',
  description: 'Translate text between languages.\nSupports 40 languages.',
  parameters: { type: 'object', properties: { text: { type: 'string' } } },
  deferLoading: true,
};

describe('generateSdk', () => {
  it('writes instructions, shared declarations and the tools object, each tool typed in place, sorted by name', () => {
    expect(generateSdk([searchOrders, translate, getWeather])).toBe(
      `${QUOTED_NAMES}${PREAMBLE}type Deferred = Tool<{ [key: string]: JsonValue }, any>;
declare const tools: {
  /** Current weather. */ "get-weather": Tool<{ city: string }>;
  /** Search orders. Newest first. */ search_orders: Tool<{ /** Free text. */ query: string; status?: "open" | "closed"; /** @minimum 1 */ limit?: number }, { id: string; total: number }[]>;
  // Deferred tools (1): name and summary only. Before calling one, print its signature with console.log(await tools.$describe({ name: "…" })) and call it in your next program; find tools by keyword with tools.$search({ query: "…" }).
  /** Translate text between languages. Supports 40 languages. */ translate: Deferred;
  /** The full TypeScript signature of a tool, as text. */ $describe(args: { name: string }): Promise<string>;
  /** Tools whose name or description contain the query's words, best first (at most limit, default 10). */ $search(args: { query: string; limit?: number }): Promise<{ name: string; summary: string }[]>;
};
`,
    );
  });

  it('writes an empty tools object when there are no loaded tools', () => {
    expect(generateSdk([])).toBe(`${PREAMBLE}declare const tools: {};\n`);
    expect(generateSdk([translate])).toContain(
      `declare const tools: {\n  // Deferred tools (1): name and summary only. Before calling one, print its signature with console.log(await tools.$describe({ name: "…" })) and call it in your next program; find tools by keyword with tools.$search({ query: "…" }).\n  /** Translate text between languages. Supports 40 languages. */ translate: Deferred;\n  /** The full`,
    );
  });

  it('says how to call a tool whose name is not an identifier only when there is one', () => {
    expect(generateSdk([getWeather]).startsWith(QUOTED_NAMES)).toBe(true);
    expect(generateSdk([{ ...getWeather, name: 'get_weather' }])).not.toContain('Quote names');
  });

  it('omits the doc comment of a tool without description', () => {
    const sdk = generateSdk([{ name: 'ping', description: '  ', parameters: { type: 'object' } }]);
    expect(sdk).toContain('declare const tools: {\n  ping: Tool<{}>;\n};\n');
  });

  it('shortens long deferred summaries to one line of 120 characters', () => {
    const sdk = generateSdk([{ ...translate, description: `${'word '.repeat(60)}\nend` }]);
    const line = sdk.split('\n').find((text) => text.endsWith(' translate: Deferred;')) ?? '';
    expect(line).toBe(`  /** ${'word '.repeat(23)}word… */ translate: Deferred;`);
  });

  it('is byte-identical for identical input, whatever the input order', () => {
    const first = generateSdk(fiftyTools);
    expect(generateSdk(structuredClone(fiftyTools))).toBe(first);
    expect(generateSdk([...fiftyTools].reverse())).toBe(first);
  });

  it('sorts by code unit, not by locale', () => {
    const names = ['b', 'B', 'a', '_', 'Z', 'é'];
    const sdk = generateSdk(names.map((name) => ({ name, description: '', parameters: true })));
    const order = [...sdk.matchAll(/^ {2}(\S+): Tool</gm)].map((match) => match[1]);
    expect(order).toEqual(['B', 'Z', '_', 'a', 'b', '"é"']);
  });

  it('lists deferred tools by name and summary only, typed loosely (no schema types)', () => {
    const sdk = generateSdk(fiftyTools);
    for (const tool of fiftyTools.filter((t) => t.deferLoading === true)) {
      expect(sdk).toContain(` ${tool.name}: Deferred;`);
    }
    expect(sdk).not.toContain('TranslateTextArgs');
  });

  it('a program calling a deferred tool type-checks (its arguments are checked at call time)', () => {
    expect(
      checkProgram(generateSdk([translate]), 'const r = await tools.translate({ text: "hola" }); return r;'),
    ).toEqual([]);
  });

  it('applies maxDepth to argument and output types', () => {
    const tool: ToolSchema = {
      name: 'deep',
      description: '',
      parameters: {
        type: 'object',
        properties: { a: { type: 'array', items: { type: 'string' } } },
        additionalProperties: false,
      },
      outputSchema: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
    };
    expect(generateSdk([tool], { maxDepth: 1 })).toContain('  deep: Tool<{ a?: JsonValue[] }, JsonValue[][]>;\n');
    expect(generateSdk([tool])).toContain('  deep: Tool<{ a?: string[] }, string[][]>;\n');
  });

  it('handles a 10,000-deep schema within the default depth and the result type-checks', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 10_000; i++)
      schema = { type: 'object', properties: { next: schema }, additionalProperties: false };
    const sdk = generateSdk([{ name: 'deep', description: 'Deep.', parameters: schema, outputSchema: schema }]);
    // The root is level 0, so levels 0..16 are objects and level 17 is JsonValue.
    expect(sdk).toContain(`  /** Deep. */ deep: Tool<${'{ next?: '.repeat(17)}JsonValue${' }'.repeat(17)}, `);
    expect(checkProgram(sdk, 'const r = await tools.deep({ next: { next: {} } });\nreturn r.next?.next;')).toEqual([]);
  });

  it("keeps the SDK for the 50-tool fixture no larger than the tools' JSON schemas", () => {
    expect(fiftyTools).toHaveLength(50);
    const schemaChars = fiftyTools.reduce(
      (sum, { name, description, parameters }) => sum + JSON.stringify({ name, description, parameters }).length,
      0,
    );
    const sdkChars = generateSdk(fiftyTools).length;
    expect(sdkChars).toBeLessThanOrEqual(schemaChars);
  });

  describe('rejects malformed input with a message naming the field', () => {
    const cases: ReadonlyArray<readonly [string, () => unknown, string]> = [
      ['not an array', () => generateSdk({} as never), 'generateSdk: expected an array of tool schemas, got object'],
      ['a null entry', () => generateSdk([null as never]), 'generateSdk: tools[0] must be an object, got null'],
      [
        'a missing name',
        () => generateSdk([{ description: '', parameters: true } as never]),
        'generateSdk: tools[0].name must be a string, got undefined',
      ],
      [
        'a bad description',
        () => generateSdk([{ name: 'a', description: 1, parameters: true } as never]),
        'generateSdk: tools[0] ("a").description must be a string, got number',
      ],
      [
        'bad parameters',
        () => generateSdk([{ name: 'a', description: '', parameters: [] } as never]),
        'generateSdk: tools[0] ("a").parameters must be a JSON Schema object or boolean, got an array',
      ],
      [
        'a bad output schema',
        () => generateSdk([{ name: 'a', description: '', parameters: true, outputSchema: 'x' } as never]),
        'generateSdk: tools[0] ("a").outputSchema must be a JSON Schema object or boolean when present, got string "x"',
      ],
      [
        'a bad deferLoading',
        () => generateSdk([{ name: 'a', description: '', parameters: true, deferLoading: 'yes' } as never]),
        'generateSdk: tools[0] ("a").deferLoading must be a boolean when present, got string "yes"',
      ],
      [
        'a duplicate name',
        () =>
          generateSdk([
            { name: 'a', description: '', parameters: true },
            { name: 'b', description: '', parameters: true },
            { name: 'a', description: '', parameters: true },
          ]),
        'generateSdk: duplicate tool name "a" at tools[0] and tools[2]; tool names must be unique',
      ],
      [
        'a fractional maxDepth',
        () => generateSdk([], { maxDepth: 1.5 }),
        'generateSdk: expected options.maxDepth to be an integer from 0 to 256, got 1.5',
      ],
      [
        'a huge maxDepth',
        () => generateSdk([], { maxDepth: 10_000 }),
        'generateSdk: expected options.maxDepth to be an integer from 0 to 256, got 10000',
      ],
      [
        'a negative maxDepth',
        () => generateSdk([], { maxDepth: -1 }),
        'generateSdk: expected options.maxDepth to be an integer from 0 to 256, got -1',
      ],
    ];
    it.each(cases)('%s', (_name, call, message) => {
      expect(call).toThrow(message);
    });
  });
});

describe('description cap', () => {
  it('a huge tool or property description is cut to MAX_DESCRIPTION_CHARS with a marker counting what is left out; the SDK still type-checks', () => {
    const tools: ToolSchema[] = [
      {
        name: 'lookup',
        description: 'd'.repeat(2_000_000),
        parameters: { type: 'object', properties: { q: { type: 'string', description: 'p'.repeat(50_000) } } },
      },
    ];
    const sdk = generateSdk(tools);
    expect(sdk.length).toBeLessThan(PREAMBLE.length + 3 * MAX_DESCRIPTION_CHARS);
    const marker = '… (truncated, 1995932 chars)';
    expect(sdk).toContain(`/** ${'d'.repeat(MAX_DESCRIPTION_CHARS - marker.length)}${marker} */ lookup: Tool<`);
    expect(sdk).toMatch(/p… \(truncated, \d+ chars\) \*\/ q\?: string/);
    expect(checkProgram(sdk, 'const r = await tools.lookup({ q: "x" }); return r;').length).toBe(0);
    // An ordinary description is untouched.
    expect(generateSdk([{ ...tools[0]!, description: 'Find one.', parameters: { type: 'object' } }])).toContain(
      '/** Find one. */ lookup: Tool<',
    );
  });

  it('capDescription: short text untouched, the cap holds exactly, a surrogate pair stays whole', () => {
    expect(capDescription('abc', 10)).toBe('abc');
    const cut = capDescription('x'.repeat(100), 40);
    expect(cut).toBe(`${'x'.repeat(17)}… (truncated, 83 chars)`);
    expect(cut.length).toBe(40);
    const emoji = capDescription('😀'.repeat(50), 40);
    expect(emoji.length).toBeLessThanOrEqual(40);
    expect(emoji).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});

describe('shared types and call options, declared once', () => {
  const order = {
    type: 'object',
    properties: {
      id: { type: 'string' },
      lines: {
        type: 'array',
        items: {
          type: 'object',
          properties: { sku: { type: 'string' }, qty: { type: 'integer' } },
          required: ['sku', 'qty'],
          additionalProperties: false,
        },
      },
      total: { type: 'number', description: 'In cents.' },
    },
    required: ['id', 'lines', 'total'],
    additionalProperties: false,
  };
  const address = {
    type: 'object',
    properties: { street: { type: 'string' }, city: { type: 'string' }, country: { type: 'string' } },
    required: ['street', 'city', 'country'],
    additionalProperties: false,
  };
  const shop: ToolSchema[] = [
    {
      name: 'flag_order',
      description: 'Flag an order.',
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      outputSchema: structuredClone(order),
    },
    {
      name: 'list_orders',
      description: 'List orders.',
      parameters: { type: 'object', properties: {} },
      outputSchema: { type: 'array', items: structuredClone(order) },
    },
    {
      name: 'quote',
      description: 'Quote shipping.',
      parameters: {
        type: 'object',
        properties: { from: address, to: address, defaultAddress: address },
        required: ['from', 'to'],
      },
    },
  ];

  it('declares a structurally identical object type once, named from where it appears', () => {
    const sdk = generateSdk(shop);
    expect(
      sdk,
    ).toBe(`${PREAMBLE}type Order = { id: string; lines: { sku: string; qty: number }[]; /** In cents. */ total: number };
type Address = { street: string; city: string; country: string };
declare const tools: {
  /** Flag an order. */ flag_order: Tool<{ id: string }, Order>;
  /** List orders. */ list_orders: Tool<{}, Order[]>;
  /** Quote shipping. */ quote: Tool<{ from: Address; to: Address; defaultAddress?: Address }>;
};
`);
    expect(
      checkProgram(
        sdk,
        'const [one, all] = await Promise.all([tools.flag_order({ id: "a" }), tools.list_orders({})]);\nconst c = new AbortController();\nawait tools.quote({ from: { street: "s", city: "c", country: "NO" }, to: { street: "s", city: "c", country: "SE" } }, { signal: c.signal });\nreturn one.lines[0]?.qty ?? all.length;',
      ),
    ).toEqual([]);
    // The call options are in the one `Tool` type, not on every member.
    expect(sdk.match(/opts\?/g)).toHaveLength(1);
  });

  it('names a shared type apart from the global types a program already has (Event, Date, URL)', () => {
    const event = {
      type: 'object',
      properties: { at: { type: 'string' }, status: { type: 'string' }, place: { type: 'string' } },
      required: ['at', 'status', 'place'],
      additionalProperties: false,
    };
    const tools: ToolSchema[] = ['first', 'second'].map((name) => ({
      name,
      description: '',
      parameters: { type: 'object' },
      outputSchema: { type: 'object', properties: { events: { type: 'array', items: event } }, required: ['events'] },
    }));
    const sdk = generateSdk(tools);
    expect(sdk).toContain('type Event2 = { at: string; status: string; place: string };');
    expect(sdk).toContain('first: Tool<{}, { events: Event2[] } & Record<string, JsonValue>>;');
    expect(
      checkProgram(
        sdk,
        'const e = (await tools.first({})).events[0];\nconst x: Event = new Event("x");\nreturn [e?.place, x.type];',
      ),
    ).toEqual([]);
  });

  it('declares a documented property type written the same way in several tools once, with its doc comment', () => {
    const orderId = { type: 'string', description: "Order id with its leading '#', e.g. '#W0000000'." };
    const tools: ToolSchema[] = ['cancel_order', 'get_order', 'return_order'].map((name) => ({
      name,
      description: '',
      parameters: {
        type: 'object',
        properties: { order_id: orderId, [`${name}_note`]: { type: 'string', description: 'Why.' } },
        required: ['order_id'],
        additionalProperties: false,
      },
    }));
    const sdk = generateSdk(tools);
    // A short doc is cheaper written out than named.
    expect(sdk).toBe(`${PREAMBLE}/** Order id with its leading '#', e.g. '#W0000000'. */ type OrderId = string;
declare const tools: {
  cancel_order: Tool<{ order_id: OrderId; /** Why. */ cancel_order_note?: string }>;
  get_order: Tool<{ order_id: OrderId; /** Why. */ get_order_note?: string }>;
  return_order: Tool<{ order_id: OrderId; /** Why. */ return_order_note?: string }>;
};
`);
    expect(checkProgram(sdk, 'return await tools.get_order({ order_id: "#W1" });')).toEqual([]);
    expect(checkProgram(sdk, 'return await tools.get_order({ order_id: 1 });')).not.toEqual([]);
    // The same doc on another type, or another doc on the same type, is not the same thing.
    const once = generateSdk([
      tools[0]!,
      { ...tools[1]!, parameters: { type: 'object', properties: { order_id: { ...orderId, type: 'integer' } } } },
    ]);
    expect(once).not.toContain('type OrderId');
  });

  it("names a tool's result from its title, else from the id it starts with, and a map's values in the singular", () => {
    const record = (...keys: string[]) => ({
      type: 'object',
      properties: Object.fromEntries(keys.map((key) => [key, { type: 'string' }])),
      required: keys,
      additionalProperties: false,
    });
    const variant = record('item_id', 'options', 'price');
    const order = record('order_id', 'user_id', 'status');
    const sku = { ...record('sku', 'name', 'warehouse'), title: 'stock keeping unit' };
    const sdk = generateSdk([
      { name: 'get_order_details', description: '', parameters: true, outputSchema: order },
      { name: 'return_order_items', description: '', parameters: true, outputSchema: order },
      { name: 'get_item_details', description: '', parameters: true, outputSchema: variant },
      {
        name: 'get_product',
        description: '',
        parameters: true,
        outputSchema: { type: 'object', properties: { variants: { type: 'object', additionalProperties: variant } } },
      },
      { name: 'get_one', description: '', parameters: true, outputSchema: sku },
      { name: 'get_other', description: '', parameters: true, outputSchema: sku },
    ]);
    expect(sdk).toContain('type Order = { order_id: string; user_id: string; status: string };');
    expect(sdk).toContain('type Variant = { item_id: string; options: string; price: string };');
    expect(sdk).toContain('type StockKeepingUnit = { sku: string; name: string; warehouse: string };');
    // Only an id names the result (`paid` is not `pa` + `id`): else the tool name's last word.
    const paid = record('paid', 'amount', 'currency');
    const payments = generateSdk(
      ['get_payment', 'refund_payment'].map((name) => ({
        name,
        description: '',
        parameters: true,
        outputSchema: paid,
      })),
    );
    expect(payments).toContain('type Payment = { paid: string; amount: string; currency: string };');
    expect(sdk).toContain(
      'get_product: Tool<JsonValue, { variants?: Record<string, Variant> } & Record<string, JsonValue>>;',
    );
  });

  it('keeps a small or once-used object in place', () => {
    const small = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
    const sdk = generateSdk([
      { name: 'a', description: '', parameters: { type: 'object', properties: { x: small } } },
      { name: 'b', description: '', parameters: { type: 'object', properties: { y: small } } },
    ]);
    expect(sdk).not.toMatch(/^type (?!JsonValue|Tool)/m);
    expect(sdk).toContain('a: Tool<{ x?: { id: string } & Record<string, JsonValue> }>;');
  });
});
