// Built-in example tools over a small shop dataset (shop-data.json): customers,
// orders, shipments and products. Used by `ptc demo`, the CLI without --tools, the
// tests and the benchmarks. Read tools are concurrency-safe; flag_order mutates.
import { readFileSync } from 'node:fs';
import { defineTool, type Tool } from '../definition/define-tool.ts';

export interface Customer {
  id: string;
  name: string;
  region: string;
  tier: string;
  email: string;
  since: string;
}
export interface OrderLine {
  sku: string;
  name: string;
  qty: number;
  unitPrice: number;
}
export interface Order {
  id: string;
  customerId: string;
  date: string;
  status: string;
  lines: OrderLine[];
  total: number;
  currency: string;
  notes: string;
  flags?: string[];
}
export interface Shipment {
  orderId: string;
  carrier: string;
  trackingNumber: string;
  promisedDate: string;
  deliveredDate: string;
  events: { at: string; status: string }[];
}
export interface ShopData {
  customers: Customer[];
  orders: Order[];
  shipments: Shipment[];
}

const dataUrl = new URL('./shop-data.json', import.meta.url);
/** A fresh copy per call, so one runtime's updates never reach another's. */
export const loadShopData = (): ShopData => JSON.parse(readFileSync(dataUrl, 'utf8')) as ShopData;

const json = (value: unknown): [{ type: 'text'; text: string }] => [{ type: 'text', text: JSON.stringify(value) }];
const readOnly = (): boolean => true;

const lineNode = {
  type: 'object',
  additionalProperties: false,
  properties: {
    sku: { type: 'string', required: true },
    name: { type: 'string', required: true },
    qty: { type: 'integer', required: true },
    unitPrice: { type: 'number', required: true },
  },
} as const;
const orderNode = {
  type: 'object',
  additionalProperties: true,
  properties: {
    id: { type: 'string', required: true },
    customerId: { type: 'string', required: true },
    date: { type: 'string', required: true, description: 'ISO date' },
    status: { type: 'string', required: true },
    lines: { type: 'array', items: lineNode, required: true },
    total: { type: 'number', required: true },
    currency: { type: 'string', required: true },
    notes: { type: 'string', required: true },
    flags: { type: 'array', items: { type: 'string' } },
  },
} as const;

/**
 * The shop tools, over their own copy of the data.
 *
 * Long: the demo's catalogue, one short tool definition after another over the same indexes.
 */
export function shopTools(data: ShopData = loadShopData()): Tool[] {
  const orderById = new Map(data.orders.map((o) => [o.id, o]));
  const shipmentByOrder = new Map(data.shipments.map((s) => [s.orderId, s]));
  const products = new Map<string, { sku: string; name: string; unitPrice: number }>();
  for (const o of data.orders)
    for (const l of o.lines) products.set(l.sku, { sku: l.sku, name: l.name, unitPrice: l.unitPrice });

  return [
    defineTool({
      name: 'list_customers',
      effect: 'read',
      description: 'List customers, optionally only those of one region.',
      parameters: { region: { type: 'string', enum: ['EU', 'NA', 'APAC'], description: 'Sales region' } },
      output: {
        schema: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            properties: {
              id: { type: 'string', required: true },
              name: { type: 'string', required: true },
              region: { type: 'string', required: true },
              tier: { type: 'string', required: true },
              email: { type: 'string', required: true },
              since: { type: 'string', required: true },
            },
          },
        },
        render: (_args, value) => json(value),
      },
      isConcurrencySafe: readOnly,
      execute: ({ region }) => data.customers.filter((c) => region === undefined || c.region === region),
    }),
    defineTool({
      name: 'list_orders',
      effect: 'read',
      description: "List one customer's orders, optionally within a date range (inclusive ISO dates).",
      parameters: {
        customerId: { type: 'string', required: true },
        from: { type: 'string', description: 'ISO date, inclusive' },
        to: { type: 'string', description: 'ISO date, inclusive' },
      },
      output: { schema: { type: 'array', items: orderNode }, render: (_args, value) => json(value) },
      isConcurrencySafe: readOnly,
      execute: ({ customerId, from, to }) =>
        data.orders.filter(
          (o) =>
            o.customerId === customerId && (from === undefined || o.date >= from) && (to === undefined || o.date <= to),
        ),
    }),
    defineTool({
      name: 'get_shipment',
      effect: 'read',
      description: 'Get the shipment of one order: carrier, promised and delivered dates, tracking events.',
      parameters: { orderId: { type: 'string', required: true } },
      output: {
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: {
            orderId: { type: 'string', required: true },
            carrier: { type: 'string', required: true },
            trackingNumber: { type: 'string', required: true },
            promisedDate: { type: 'string', required: true },
            deliveredDate: { type: 'string', required: true },
            events: {
              type: 'array',
              required: true,
              items: {
                type: 'object',
                additionalProperties: false,
                properties: { at: { type: 'string', required: true }, status: { type: 'string', required: true } },
              },
            },
          },
        },
        render: (_args, value) => json(value),
      },
      isConcurrencySafe: readOnly,
      execute: ({ orderId }) => {
        const shipment = shipmentByOrder.get(orderId);
        if (shipment === undefined)
          throw Object.assign(new Error(`no shipment for order ${orderId}`), { code: 'NOT_FOUND' });
        return shipment;
      },
    }),
    defineTool({
      name: 'search_products',
      effect: 'read',
      description: 'Search products by words in their name; returns SKUs and names only.',
      parameters: { query: { type: 'string', required: true } },
      output: {
        schema: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            properties: { sku: { type: 'string', required: true }, name: { type: 'string', required: true } },
          },
        },
        render: (_args, value) => json(value),
      },
      isConcurrencySafe: readOnly,
      execute: ({ query }) => {
        const words = query.toLowerCase().split(/\s+/).filter(Boolean);
        return [...products.values()]
          .filter((p) => words.some((w) => p.name.toLowerCase().includes(w)))
          .map(({ sku, name }) => ({ sku, name }));
      },
    }),
    defineTool({
      name: 'get_product_sales',
      effect: 'read',
      description: 'Sales of one product: every order line with that SKU (order id, date, quantity, price).',
      parameters: { sku: { type: 'string', required: true } },
      output: { schema: { type: 'json' }, render: (_args, value) => json(value) },
      isConcurrencySafe: readOnly,
      execute: ({ sku }) =>
        data.orders.flatMap((o) =>
          o.lines
            .filter((l) => l.sku === sku)
            .map((l) => ({
              orderId: o.id,
              customerId: o.customerId,
              date: o.date,
              qty: l.qty,
              unitPrice: l.unitPrice,
              notes: o.notes,
            })),
        ),
    }),
    defineTool({
      name: 'flag_order',
      description: 'Add a review flag to an order (mutates the order). Returns the updated order.',
      parameters: {
        orderId: { type: 'string', required: true },
        reason: { type: 'string', required: true, minLength: 3 },
      },
      output: { schema: orderNode, render: (_args, value) => json(value) },
      execute: ({ orderId, reason }) => {
        const order = orderById.get(orderId);
        if (order === undefined) throw Object.assign(new Error(`no order ${orderId}`), { code: 'NOT_FOUND' });
        order.flags = [...(order.flags ?? []), reason];
        return order;
      },
    }),
  ];
}

export default shopTools;
