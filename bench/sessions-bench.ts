// Sessions: a three-turn retail conversation of τ²-retail's shape (one customer, twelve
// orders, questions that each need all of them), run three ways on a scripted model:
// `refetch` (every program fetches the user and the orders again), `context` (the first
// program returns the orders and the model carries them into the next programs' code),
// `session` (the first program keeps them in `state`, the next ones read it). Counted per
// conversation: tool calls, tokens the model reads (run_code results), tokens it writes
// (the programs), and wall time. Tokens: o200k_base (js-tiktoken). All three must give
// the same answers, or the row is void.
//   node --no-node-snapshot --conditions=ptc-source bench/sessions-bench.ts [--repeat N] [--tool-ms MS]
import { isDeepStrictEqual } from 'node:util';
import { parseArgs } from 'node:util';
import { countTokens } from './bfcl/tokens.ts';
import { createToolRuntime, defineTool, type JsonValue, type ToolResult } from '../src/index.ts';

const OUTPUT = {
  schema: { type: 'json' },
  render: (_args: unknown, value: unknown) => [{ type: 'text' as const, text: JSON.stringify(value) }],
} as const;

const ORDERS = 12;
const ITEMS = 5;
const KINDS = ['T-Shirt', 'Water Bottle', 'Backpack', 'Desk Lamp', 'Sneakers'];
const STATUSES = ['pending', 'delivered', 'processed'];

function order(i: number): JsonValue {
  return {
    order_id: `#W${1000 + i}`,
    user_id: 'mei_davis_8935',
    status: STATUSES[i % 3]!,
    address: { address1: `${i} Elm Street`, city: 'Denver', state: 'CO', zip: '80202', country: 'USA' },
    items: Array.from({ length: ITEMS }, (_, k) => ({
      name: KINDS[(i + k) % KINDS.length]!,
      product_id: `p${(i + k) % KINDS.length}`,
      item_id: `i${i}${k}`,
      price: Math.round((19.5 + i * 3.25 + k * 7.75) * 100) / 100,
      options: { color: ['red', 'blue', 'black'][k % 3]!, size: ['S', 'M', 'L'][i % 3]! },
    })),
    payment_history: [{ transaction_type: 'payment', amount: 100 + i, payment_method_id: 'credit_card_1' }],
  };
}

/** A tool's own latency (`--tool-ms`, default 0: the tools answer at once). */
const latency = (): Promise<void> =>
  toolMs === 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, toolMs));

function tools(counter: { calls: number }) {
  const user = defineTool({
    name: 'get_user_details',
    description: 'A user: name, address, email, payment methods, order ids.',
    parameters: { user_id: { type: 'string', required: true } },
    output: OUTPUT,
    execute: async () => {
      counter.calls += 1;
      await latency();
      return {
        user_id: 'mei_davis_8935',
        name: { first_name: 'Mei', last_name: 'Davis' },
        email: 'mei.davis@example.com',
        orders: Array.from({ length: ORDERS }, (_, i) => `#W${1000 + i}`),
      };
    },
  });
  const details = defineTool({
    name: 'get_order_details',
    description: 'Status and details of an order.',
    parameters: { order_id: { type: 'string', required: true } },
    output: OUTPUT,
    isConcurrencySafe: () => true,
    execute: async (args) => {
      counter.calls += 1;
      await latency();
      return order(Number(args.order_id.slice(2)) - 1000);
    },
  });
  return [user, details];
}

const FETCH = `const user = await tools.get_user_details({ user_id: "mei_davis_8935" });
const orders = await Promise.all(user.orders.map((order_id) => tools.get_order_details({ order_id })));`;
// The three questions, as each way's programs answer them.
const ANSWERS = [
  'return orders.filter((o) => o.status === "pending").map((o) => o.order_id);',
  'return Math.round(orders.filter((o) => o.status === "delivered").reduce((s, o) => s + o.items.reduce((t, i) => t + i.price, 0), 0) * 100) / 100;',
  'return orders.filter((o) => o.status === "pending").flatMap((o) => o.items.filter((i) => i.name === "T-Shirt").map((i) => [o.order_id, i.item_id, i.price]));',
];

type Way = 'refetch' | 'context' | 'session';

interface Conversation {
  readonly calls: number;
  readonly readTokens: number;
  readonly writtenTokens: number;
  readonly ms: number;
  readonly answers: JsonValue[];
}

async function converse(way: Way): Promise<Conversation> {
  const counter = { calls: 0 };
  const rt = createToolRuntime({ mode: 'ptc', sandbox: { poolSize: 2 }, sessions: way === 'session' });
  for (const tool of tools(counter)) rt.register(tool);
  // Warm the sandbox outside the measured conversation.
  await rt.execute({ callId: 'warm', name: 'run_code', arguments: { description: 'warm', code: 'return 1;' } });
  let read = 0;
  let written = 0;
  let session: string | undefined;
  let carried = '';
  const answers: JsonValue[] = [];
  const started = performance.now();
  for (const [turn, answer] of ANSWERS.entries()) {
    let code: string;
    if (way === 'refetch') code = `${FETCH}\n${answer}`;
    else if (way === 'session')
      code = turn === 0 ? `${FETCH}\nstate.orders = orders;\n${answer}` : `const orders = state.orders;\n${answer}`;
    else if (turn === 0) code = `${FETCH}\nreturn { orders, answer: (() => { ${answer} })() };`;
    else code = `const orders = ${carried};\n${answer}`;
    written += countTokens(code);
    const result: ToolResult = await rt.execute({
      callId: `turn${turn}`,
      name: 'run_code',
      arguments: { description: `Question ${turn + 1}`, code, ...(session === undefined ? {} : { session }) },
    });
    if (result.isError) throw new Error(`${way} turn ${turn}: ${result.error?.message}`);
    read += countTokens(result.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n'));
    const value = result.value as { result?: JsonValue; session?: { id: string } };
    session = value.session?.id ?? session;
    if (way === 'context' && turn === 0) {
      const both = value.result as { orders: JsonValue; answer: JsonValue };
      carried = JSON.stringify(both.orders);
      answers.push(both.answer);
    } else {
      answers.push(value.result ?? null);
    }
  }
  const ms = performance.now() - started;
  await rt.close();
  return { calls: counter.calls, readTokens: read, writtenTokens: written, ms, answers };
}

const { values } = parseArgs({
  options: { repeat: { type: 'string', default: '3' }, 'tool-ms': { type: 'string', default: '0' } },
});
const toolMs = Number(values['tool-ms']);
const repeat = Number(values.repeat);
const rows: Record<Way, Conversation[]> = { refetch: [], context: [], session: [] };
for (let r = 0; r < repeat; r += 1)
  for (const way of ['refetch', 'context', 'session'] as const) rows[way].push(await converse(way));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const reference = rows.refetch[0]!.answers;
for (const way of ['refetch', 'context', 'session'] as const) {
  const runs = rows[way];
  const same = runs.every((c) => isDeepStrictEqual(c.answers, reference));
  console.log(
    `${way.padEnd(8)} calls ${runs[0]!.calls}  read ${runs[0]!.readTokens} tokens  written ${runs[0]!.writtenTokens} tokens  ` +
      `wall ${Math.round(median(runs.map((c) => c.ms)))} ms (median of ${repeat})  same answers: ${same}`,
  );
}
