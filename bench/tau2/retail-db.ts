// The retail database as upstream's data model dumps it: the same fields in the same
// order (an order carries its optional exchange / return / cancel fields as null until a
// write sets them), so a tool result serializes to the text upstream's model reads.
import { readDataFile } from './data-file.ts';

export interface Address {
  address1: string;
  address2: string;
  city: string;
  country: string;
  state: string;
  zip: string;
}

export interface Variant {
  item_id: string;
  options: Record<string, string>;
  available: boolean;
  price: number;
}

export interface Product {
  name: string;
  product_id: string;
  variants: Record<string, Variant>;
}

export type PaymentMethod =
  | { source: 'credit_card'; id: string; brand: string; last_four: string }
  | { source: 'gift_card'; id: string; balance: number }
  | { source: 'paypal'; id: string };

export interface User {
  user_id: string;
  name: { first_name: string; last_name: string };
  address: Address;
  email: string;
  payment_methods: Record<string, PaymentMethod>;
  orders: string[];
}

export interface OrderItem {
  name: string;
  product_id: string;
  item_id: string;
  price: number;
  options: Record<string, string>;
}

export interface OrderPayment {
  transaction_type: 'payment' | 'refund';
  amount: number;
  payment_method_id: string;
}

export interface Order {
  order_id: string;
  user_id: string;
  address: Address;
  items: OrderItem[];
  status: string;
  fulfillments: { tracking_id: string[]; item_ids: string[] }[];
  payment_history: OrderPayment[];
  cancel_reason: string | null;
  exchange_items: string[] | null;
  exchange_new_items: string[] | null;
  exchange_payment_method_id: string | null;
  exchange_price_difference: number | null;
  return_items: string[] | null;
  return_payment_method_id: string | null;
}

export interface RetailDb {
  products: Record<string, Product>;
  users: Record<string, User>;
  orders: Record<string, Order>;
}

/** An address in the data model's field order, whatever order the fields were given in. */
export const address = (a: Address): Address => ({
  address1: a.address1,
  address2: a.address2,
  city: a.city,
  country: a.country,
  state: a.state,
  zip: a.zip,
});

/** An order as model_dump gives it: every field, the optional ones null when unset. */
function fullOrder(o: Partial<Order>): Order {
  return {
    order_id: o.order_id ?? '',
    user_id: o.user_id ?? '',
    address: address(o.address as Address),
    items: o.items ?? [],
    status: o.status ?? '',
    fulfillments: o.fulfillments ?? [],
    payment_history: o.payment_history ?? [],
    cancel_reason: o.cancel_reason ?? null,
    exchange_items: o.exchange_items ?? null,
    exchange_new_items: o.exchange_new_items ?? null,
    exchange_payment_method_id: o.exchange_payment_method_id ?? null,
    exchange_price_difference: o.exchange_price_difference ?? null,
    return_items: o.return_items ?? null,
    return_payment_method_id: o.return_payment_method_id ?? null,
  };
}

/** The database text of a data folder (read once, parsed per fresh copy). */
export const readDbText = (dir: string): string => readDataFile(dir, 'db.json');

/** A fresh, independent database from its JSON text. */
export function parseDb(text: string): RetailDb {
  const raw = JSON.parse(text) as RetailDb;
  const orders: Record<string, Order> = {};
  for (const [id, o] of Object.entries(raw.orders)) orders[id] = fullOrder(o);
  return { products: raw.products, users: raw.users, orders };
}

/**
 * Each variant's position in the file. JSON.parse lists integer-like keys (the item ids)
 * first in numeric order; Python keeps the file's order, and prints a product's variants
 * in it.
 */
export function variantRanks(text: string): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const m of text.matchAll(/"(\d+)"\s*:\s*\{\s*"item_id"\s*:\s*"(\d+)"/g)) {
    const id = m[1] as string;
    if (id === m[2] && !ranks.has(id)) ranks.set(id, ranks.size);
  }
  return ranks;
}
