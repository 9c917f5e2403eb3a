import { describe, expect, it } from '@jest/globals';
import { checkProgram, generateSdk } from '../../sdk-gen/index.ts';
import { fiftyTools } from './fixtures/fifty-tools.ts';

const sdk = generateSdk(fiftyTools);

// Programs the way a model writes them against this SDK.
const modelPrograms: ReadonlyArray<readonly [string, string]> = [
  [
    'a call and a return',
    `
const { orders, nextCursor } = await tools.search_orders({ customerId: "cus_1", status: "paid", limit: 10 });
return { count: orders.length, more: nextCursor !== null, total: orders.reduce((sum, o) => sum + o.total.amount, 0) };`,
  ],
  [
    'independent read-only calls in parallel',
    `
const [customer, order, weather] = await Promise.all([
  tools.get_customer({ email: "a@example.com" }),
  tools.get_order({ orderId: "ord_1" }),
  tools.get_weather({ location: "Berlin" }),
]);
console.log(customer.tier, order.items.map((item) => item.sku).join(", "), weather);
return customer.defaultAddress?.city ?? "no address";`,
  ],
  [
    'a failed call caught as ToolCallError',
    `
try {
  await tools.cancel_order({ orderId: "ord_1", reason: "fraud", notifyCustomer: false });
} catch (error) {
  if (error instanceof ToolCallError) {
    console.error(error.toolName, error.code, error.message);
    return { failed: error.code };
  }
  throw error;
}`,
  ],
  [
    'a loop with pagination and console output',
    `
let cursor: string | undefined;
const ids: string[] = [];
for (let page = 0; page < 5; page++) {
  const result = await tools.search_orders(cursor === undefined ? { limit: 100 } : { limit: 100, cursor });
  ids.push(...result.orders.map((order) => order.id));
  if (result.nextCursor === null) break;
  cursor = result.nextCursor;
}
console.log(\`found \${ids.length} orders\`);
console.info("info"); console.warn("warn"); console.debug({ ids });`,
  ],
  [
    'untyped outputs are JsonValue and need narrowing',
    `
const weather = await tools.get_weather({ location: "Paris", units: "metric" });
if (weather !== null && typeof weather === "object" && !Array.isArray(weather)) {
  return weather["temperature"];
}
return null;`,
  ],
  [
    'union arguments and nested objects',
    `
await tools.create_discount_code({ code: "SPRING10", discount: { kind: "percent", percent: 10 }, expiresAt: null });
await tools.create_discount_code({ code: "FIVE", discount: { kind: "fixed", amount: { amount: 500, currency: "EUR" } } });
await tools.create_shipment({ orderId: "ord_1", carrier: "dhl", items: [{ sku: "A", quantity: 1 }] });
const rows = await tools.run_sql_query({ sql: "select 1", params: [1, "a", true, null] });
return rows.rows.length;`,
  ],
];

describe('checkProgram', () => {
  it.each(modelPrograms)('accepts a model-style program: %s', (_name, program) => {
    expect(checkProgram(sdk, program)).toEqual([]);
  });

  it('accepts an empty program and one that only returns', () => {
    expect(checkProgram(sdk, '')).toEqual([]);
    expect(checkProgram(sdk, 'return 1;')).toEqual([]);
  });

  it('rejects a wrong argument type, positioned in the program', () => {
    const program = 'const a = 1;\nconst order = await tools.get_order({ orderId: 42 });\nreturn order.id;';
    expect(checkProgram(sdk, program)).toEqual([
      { line: 2, column: 39, code: 2322, message: "Type 'number' is not assignable to type 'string'." },
    ]);
  });

  it('rejects a missing required argument, an enum typo and an unknown tool', () => {
    const program = [
      'await tools.get_order({});',
      'await tools.cancel_order({ orderId: "o", reason: "customer-request" });',
      'await tools.get_orders({ orderId: "o" });',
    ].join('\n');
    const diagnostics = checkProgram(sdk, program);
    expect(diagnostics.map(({ line, column, code }) => ({ line, column, code }))).toEqual([
      { line: 1, column: 23, code: 2345 },
      { line: 2, column: 42, code: 2820 },
      { line: 3, column: 13, code: 2551 },
    ]);
    expect(diagnostics[0]?.message).toContain("Property 'orderId' is missing");
    expect(diagnostics[1]?.message).toContain('Did you mean \'"customer_request"\'?');
    expect(diagnostics[2]?.message).toContain("Did you mean 'get_order'?");
  });

  it('rejects a misspelled or extra argument property: the argument root is closed in the types', () => {
    const diagnostics = checkProgram(
      sdk,
      'await tools.get_order({ orderId: "o" });\nawait tools.get_order({ orderId: "o", qurey: "vpn" });',
    );
    expect(diagnostics).toMatchObject([{ line: 2, code: 2353 }]);
    expect(diagnostics[0]?.message).toContain("'qurey' does not exist in type '{ orderId: string; }'");
  });

  it('keeps an argument root without declared properties, and nested objects declared open, open', () => {
    const open = generateSdk([
      { name: 'anything', description: '', parameters: { type: 'object' } },
      {
        name: 'tag',
        description: '',
        parameters: {
          type: 'object',
          properties: { meta: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true } },
          additionalProperties: true,
        },
      },
    ]);
    expect(
      checkProgram(open, 'await tools.anything({ x: 1, y: [2] });\nawait tools.tag({ meta: { a: "x", b: 2 } });'),
    ).toEqual([]);
    expect(checkProgram(open, 'await tools.tag({ meta: {}, other: 1 });')).toMatchObject([{ code: 2353 }]);
  });

  it('lets a catch block read the ToolCallError fields the SDK promises', () => {
    const program = [
      'try { await tools.get_order({ orderId: "o" }); }',
      'catch (e) { console.log(e.code, e.toolName, e.message); }',
      'return "done";',
    ].join('\n');
    expect(checkProgram(sdk, program)).toEqual([]);
  });

  it('rejects misuse of a typed result', () => {
    const diagnostics = checkProgram(
      sdk,
      'const o = await tools.get_order({ orderId: "o" });\nreturn o.total.toUpperCase();',
    );
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ line: 2, column: 16, code: 2339 });
  });

  it('requires awaiting: a Promise is not the result', () => {
    const diagnostics = checkProgram(sdk, 'const o = tools.get_order({ orderId: "o" });\nreturn o.id;');
    expect(diagnostics).toMatchObject([{ line: 2, column: 10 }]);
  });

  it.each([
    ['process', 'process.exit(1);'],
    ['require', 'const fs = require("fs");'],
    ['setImmediate', 'setImmediate(() => 1);'],
    ['fetch', 'await fetch("https://example.com");'],
    ['document', 'document.title = "x";'],
    ['Buffer', 'Buffer.from("x");'],
  ])('offers nothing of Node or the DOM: %s', (name, program) => {
    const diagnostics = checkProgram(sdk, program);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]?.message).toContain(`Cannot find name '${name}'`);
  });

  it('offers ES2023 built-ins and nothing newer', () => {
    const diagnostics = checkProgram(
      sdk,
      'const xs = [3, 1, 2].toSorted();\nreturn [xs.at(-1), Object.groupBy, Promise.withResolvers];',
    );
    expect(diagnostics.map(({ line, column }) => [line, column])).toEqual([
      [2, 27],
      [2, 44],
    ]);
    expect(
      checkProgram(
        sdk,
        'return [[3, 1].toSorted().findLast((x) => x > 1), new Map([[1, 2]]).size, 10n, JSON.stringify({})];',
      ),
    ).toEqual([]);
  });

  it('knows the web-standard globals of the sandbox (docs/guest-globals.md)', () => {
    const program = [
      'const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));',
      'await sleep(10); const t = setInterval(() => {}, 5); clearInterval(t); queueMicrotask(() => {});',
      'const u = new URL("/x?a=1", "https://h"); u.searchParams.append("b", "2"); const ok: boolean = URL.canParse(u.href);',
      'const bytes: Uint8Array = new TextEncoder().encode(JSON.stringify({ a: 1 }));',
      'const text: string = new TextDecoder().decode(bytes); const b64: string = btoa(text); atob(b64);',
      'const digest: ArrayBuffer = await crypto.subtle.digest("SHA-256", bytes); const id: string = crypto.randomUUID();',
      'crypto.getRandomValues(new Uint32Array(4));',
      'const controller = new AbortController(); const s: AbortSignal = AbortSignal.any([controller.signal, AbortSignal.timeout(50)]);',
      's.addEventListener("abort", (e: Event) => console.log(e.type)); s.throwIfAborted();',
      'const copy: { a: number } = structuredClone({ a: 1 }); const t0: number = performance.now();',
      'try { atob("!"); } catch (e) { if (e instanceof DOMException) console.log(e.name, e.code); }',
      'const order = await tools.get_order({ orderId: "o" }, { signal: AbortSignal.timeout(1000) });',
      'return [ok, digest.byteLength, id, copy.a, t0, new EventTarget().dispatchEvent(new Event("x")), order];',
    ].join('\n');
    expect(checkProgram(sdk, program)).toEqual([]);
  });

  it('reports syntax errors first, at their line and column', () => {
    const diagnostics = checkProgram(sdk, 'const a = 1;\nconst b = ;\nconst c: number = "x";');
    expect(diagnostics).toEqual([{ line: 2, column: 11, code: 1109, message: 'Expression expected.' }]);
  });

  it('clamps an error at the end of the wrapper to the end of the program', () => {
    const diagnostics = checkProgram(sdk, 'if (true) {\n  console.log(1);');
    expect(diagnostics).toMatchObject([{ line: 2, column: 18, code: 1005 }]);
  });

  it('counts lines the way TypeScript does, CRLF included', () => {
    const diagnostics = checkProgram(sdk, 'const a = 1;\r\nconst b: string = a;');
    expect(diagnostics).toMatchObject([{ line: 2, column: 7, code: 2322 }]);
  });

  it('sees each check afresh: nothing declared by one program leaks into the next', () => {
    expect(checkProgram(sdk, 'const shared = 1;\nreturn shared;')).toEqual([]);
    expect(checkProgram(sdk, 'return shared;')).toMatchObject([{ line: 1, column: 8, code: 2304 }]);
  });

  it('checks against the SDK it is given', () => {
    const small = generateSdk([{ name: 'ping', description: 'Ping.', parameters: { type: 'object' } }]);
    expect(checkProgram(small, 'await tools.ping({});')).toEqual([]);
    expect(checkProgram(small, 'await tools.get_order({ orderId: "o" });')).toMatchObject([{ code: 2339 }]);
    expect(checkProgram(sdk, 'await tools.ping({});')).toMatchObject([{ code: 2339 }]);
  });

  it('throws when the SDK text does not type-check', () => {
    expect(() => checkProgram('declare const tools: Missing;', '')).toThrow(
      "checkProgram: the SDK text has 1 TypeScript error(s), first at 1:22 Cannot find name 'Missing'.; pass the text generateSdk returned",
    );
  });
});
