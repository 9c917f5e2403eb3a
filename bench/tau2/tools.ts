// The fifteen retail tools as ptc-runtime tools: JSON Schema arguments and outputs, the
// bodies acting on the session's current store. A native model reads a result as upstream
// renders it (the model's JSON in field order, a plain string as is); a failed call reads
// `Error: <message>`, as upstream's tool message does.
import { defineJsonSchemaTool, type JsonValue, type Tool } from '../../src/index.ts';
import { pyJsonDumps } from './py-json.ts';
import type { RetailStore } from './retail-store.ts';

/** The store the tools act on: swapped for a fresh one per task. */
export interface RetailSession {
  store: RetailStore;
}

const str = (description: string) => ({ type: 'string', description }) as const;
const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, description }) as const;
const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});
const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });
const options = { type: 'object', additionalProperties: { type: 'string' }, description: 'option name → value' };

const ADDRESS = object({
  address1: { type: 'string' },
  address2: { type: 'string' },
  city: { type: 'string' },
  country: { type: 'string' },
  state: { type: 'string' },
  zip: { type: 'string' },
});
const VARIANT = object({
  item_id: { type: 'string' },
  options,
  available: { type: 'boolean' },
  price: { type: 'number' },
});
const PRODUCT = object({
  name: { type: 'string' },
  product_id: { type: 'string' },
  variants: { type: 'object', additionalProperties: VARIANT, description: 'item id → variant' },
});
const PAYMENT_METHOD = {
  type: 'object',
  properties: {
    source: { enum: ['credit_card', 'gift_card', 'paypal'] },
    id: { type: 'string' },
    brand: { type: 'string' },
    last_four: { type: 'string' },
    balance: { type: 'number' },
  },
  required: ['source', 'id'],
  additionalProperties: false,
};
const USER = object({
  user_id: { type: 'string' },
  name: object({ first_name: { type: 'string' }, last_name: { type: 'string' } }),
  address: ADDRESS,
  email: { type: 'string' },
  payment_methods: { type: 'object', additionalProperties: PAYMENT_METHOD, description: 'payment method id → method' },
  orders: strings('order ids'),
});
const ORDER = object({
  order_id: { type: 'string' },
  user_id: { type: 'string' },
  address: ADDRESS,
  items: {
    type: 'array',
    items: object({
      name: { type: 'string' },
      product_id: { type: 'string' },
      item_id: { type: 'string' },
      price: { type: 'number' },
      options,
    }),
  },
  status: {
    enum: [
      'processed',
      'pending',
      'pending (item modified)',
      'delivered',
      'cancelled',
      'exchange requested',
      'return requested',
    ],
  },
  fulfillments: {
    type: 'array',
    items: object({ tracking_id: strings('tracking ids'), item_ids: strings('item ids') }),
  },
  payment_history: {
    type: 'array',
    items: object({
      transaction_type: { enum: ['payment', 'refund'] },
      amount: { type: 'number' },
      payment_method_id: { type: 'string' },
    }),
  },
  cancel_reason: nullable({ type: 'string' }),
  exchange_items: nullable({ type: 'array', items: { type: 'string' } }),
  exchange_new_items: nullable({ type: 'array', items: { type: 'string' } }),
  exchange_payment_method_id: nullable({ type: 'string' }),
  exchange_price_difference: nullable({ type: 'number' }),
  return_items: nullable({ type: 'array', items: { type: 'string' } }),
  return_payment_method_id: nullable({ type: 'string' }),
});
const TEXT = { type: 'string' };

const ORDER_ID = str("Order id with its leading '#', e.g. '#W0000000'.");
const USER_ID = str("User id, e.g. 'sara_doe_496'.");
const PAYMENT_ID = str(
  "Payment method id, e.g. 'gift_card_0000000' or 'credit_card_0000000' (see the user's or order's details).",
);
const ADDRESS_ARGS = {
  address1: str("First address line, e.g. '123 Main St'."),
  address2: str("Second address line, e.g. 'Apt 1', or ''."),
  city: str('City.'),
  state: str("State, e.g. 'CA'."),
  country: str("Country, e.g. 'USA'."),
  zip: str("Zip code, e.g. '12345'."),
};
const CONFIRM = 'Explain the change and get an explicit "yes" from the user first.';

interface RetailToolSpec {
  readonly name: keyof RetailStore & string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
  readonly output: Record<string, unknown>;
  /** Reads may run alongside each other; writes run alone. */
  readonly write?: true;
}

/** The tools' contracts, in our own words (upstream's behaviour, not its text). */
export const RETAIL_TOOL_SPECS: readonly RetailToolSpec[] = [
  {
    name: 'calculate',
    description:
      'Evaluate an arithmetic expression (digits, + - * / ( ) . and spaces); returns the value rounded to 2 decimals.',
    parameters: object({ expression: str("e.g. '2 + 2'") }),
    output: TEXT,
  },
  {
    name: 'cancel_pending_order',
    description: `Cancel a pending order; payments are refunded (to a gift card at once, otherwise in 5-7 business days). ${CONFIRM}`,
    parameters: object({ order_id: ORDER_ID, reason: { enum: ['no longer needed', 'ordered by mistake'] } }),
    output: ORDER,
    write: true,
  },
  {
    name: 'exchange_delivered_order_items',
    description: `Exchange items of a delivered order for other variants of the same products (once per order). ${CONFIRM}`,
    parameters: object({
      order_id: ORDER_ID,
      item_ids: strings('Item ids to exchange (may repeat).'),
      new_item_ids: strings('Replacement item ids, position by position, same product.'),
      payment_method_id: str('Pays or receives the price difference. ' + PAYMENT_ID.description),
    }),
    output: ORDER,
    write: true,
  },
  {
    name: 'find_user_id_by_name_zip',
    description: 'Find a user id by first name, last name and zip code (use when the email is unknown).',
    parameters: object({ first_name: str("e.g. 'John'"), last_name: str("e.g. 'Doe'"), zip: str("e.g. '12345'") }),
    output: TEXT,
  },
  {
    name: 'find_user_id_by_email',
    description: 'Find a user id by email.',
    parameters: object({ email: str("e.g. 'something@example.com'") }),
    output: TEXT,
  },
  {
    name: 'get_order_details',
    description: 'Status and details of an order.',
    parameters: object({ order_id: ORDER_ID }),
    output: ORDER,
  },
  {
    name: 'get_product_details',
    description: 'A product and all its variants (item ids, options, availability, price).',
    parameters: object({ product_id: str('Product id (not an item id).') }),
    output: PRODUCT,
  },
  {
    name: 'get_item_details',
    description: 'One item (variant): options, availability, price.',
    parameters: object({ item_id: str('Item id (not a product id).') }),
    output: VARIANT,
  },
  {
    name: 'get_user_details',
    description: 'A user: name, address, email, payment methods, order ids.',
    parameters: object({ user_id: USER_ID }),
    output: USER,
  },
  {
    name: 'list_all_product_types',
    description: 'All 50 product types: name → product id, sorted by name.',
    parameters: object({}),
    output: { type: 'object', additionalProperties: { type: 'string' } },
  },
  {
    name: 'modify_pending_order_address',
    description: `Change the shipping address of a pending order. ${CONFIRM}`,
    parameters: object({ order_id: ORDER_ID, ...ADDRESS_ARGS }),
    output: ORDER,
    write: true,
  },
  {
    name: 'modify_pending_order_items',
    description: `Swap items of a pending order for other variants of the same products; only once per order. ${CONFIRM}`,
    parameters: object({
      order_id: ORDER_ID,
      item_ids: strings('Item ids to change (may repeat).'),
      new_item_ids: strings('New item ids, position by position, same product, each different from the old.'),
      payment_method_id: str('Pays or receives the price difference. ' + PAYMENT_ID.description),
    }),
    output: ORDER,
    write: true,
  },
  {
    name: 'modify_pending_order_payment',
    description: `Pay a pending order with another payment method. ${CONFIRM}`,
    parameters: object({ order_id: ORDER_ID, payment_method_id: PAYMENT_ID }),
    output: ORDER,
    write: true,
  },
  {
    name: 'modify_user_address',
    description: `Change a user's default address. ${CONFIRM}`,
    parameters: object({ user_id: USER_ID, ...ADDRESS_ARGS }),
    output: USER,
    write: true,
  },
  {
    name: 'return_delivered_order_items',
    description: `Request a return of items of a delivered order; the refund goes to the original payment method or a gift card. ${CONFIRM}`,
    parameters: object({
      order_id: ORDER_ID,
      item_ids: strings('Item ids to return (may repeat).'),
      payment_method_id: str('Receives the refund: the original payment method or a gift card.'),
    }),
    output: ORDER,
    write: true,
  },
  {
    name: 'transfer_to_human_agents',
    description:
      'Hand the user to a human agent with a summary; only when asked for, or when policy and tools cannot solve the issue.',
    parameters: object({ summary: str("A summary of the user's issue.") }),
    output: TEXT,
  },
];

export const WRITE_TOOLS: ReadonlySet<string> = new Set(
  RETAIL_TOOL_SPECS.filter((s) => s.write === true).map((s) => s.name),
);

/**
 * What a native model reads: upstream's text. Objects print in the data model's field
 * order; a product's variants in the file's order (`variantRanks`); the product list as
 * upstream's sorted JSON text.
 */
export function resultText(name: string, value: unknown, ranks: ReadonlyMap<string, number>): string {
  if (typeof value === 'string') return value;
  if (name === 'list_all_product_types') return pyJsonDumps(value, { sortKeys: true });
  return pyJsonDumps(value, {
    orderKeys: (parent, keys) =>
      parent === 'variants' ? keys.sort((a, b) => (ranks.get(a) ?? 0) - (ranks.get(b) ?? 0)) : keys,
  });
}

/** The fifteen tools over `session`'s store. */
export function retailTools(session: RetailSession, ranks: ReadonlyMap<string, number>): Tool[] {
  return RETAIL_TOOL_SPECS.map((spec) =>
    defineJsonSchemaTool({
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters,
      output: {
        schema: spec.output,
        render: (_args: unknown, value: unknown) => [{ type: 'text', text: resultText(spec.name, value, ranks) }],
      },
      ...(spec.write === true ? {} : { isConcurrencySafe: () => true }),
      // The store's objects are live database rows; the runtime snapshots the value it returns.
      execute: (args: unknown) =>
        (session.store[spec.name] as (a: unknown) => unknown).call(session.store, args) as JsonValue,
    }),
  );
}
