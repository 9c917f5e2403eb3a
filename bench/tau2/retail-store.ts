// The fifteen retail tools' behaviour over one database: what each returns, the error
// text each raises (upstream shows a failed call to the model as `Error: <message>`),
// and how each write changes the database, step for step as upstream's toolkit does —
// including its quirks (see the notes at modify_pending_order_items).
import { calculate } from './calculate.ts';
import { pyRound2 } from './py-json.ts';
import { RetailError } from './retail-error.ts';
import {
  type Address,
  address,
  type Order,
  type PaymentMethod,
  type Product,
  type RetailDb,
  type User,
  type Variant,
} from './retail-db.ts';

export { RetailError };

const fail = (message: string): never => {
  throw new RetailError(message);
};

const CANCEL_REASONS: ReadonlySet<string> = new Set(['no longer needed', 'ordered by mistake']);

/** How many times `x` occurs in `list` (Python's list.count). */
const count = (list: readonly string[], x: string): number => list.filter((y) => y === x).length;

export type AddressArgs = Address;

export class RetailStore {
  readonly db: RetailDb;

  constructor(db: RetailDb) {
    this.db = db;
  }

  private order(orderId: string): Order {
    return Object.hasOwn(this.db.orders, orderId) ? (this.db.orders[orderId] as Order) : fail('Order not found');
  }

  private user(userId: string): User {
    return Object.hasOwn(this.db.users, userId) ? (this.db.users[userId] as User) : fail('User not found');
  }

  private product(productId: string): Product {
    return Object.hasOwn(this.db.products, productId)
      ? (this.db.products[productId] as Product)
      : fail('Product not found');
  }

  private variant(productId: string, variantId: string): Variant {
    const product = this.product(productId);
    return Object.hasOwn(product.variants, variantId)
      ? (product.variants[variantId] as Variant)
      : fail('Variant not found');
  }

  private paymentMethod(userId: string, paymentMethodId: string): PaymentMethod {
    const user = this.user(userId);
    return Object.hasOwn(user.payment_methods, paymentMethodId)
      ? (user.payment_methods[paymentMethodId] as PaymentMethod)
      : fail('Payment method not found');
  }

  /** Each of `itemIds` (duplicates counted) must be in the order at least as often. */
  private checkItemsInOrder(order: Order, itemIds: readonly string[], message: (id: string) => string): void {
    const all = order.items.map((i) => i.item_id);
    for (const id of itemIds) if (count(itemIds, id) > count(all, id)) fail(message(id));
  }

  calculate(args: { expression: string }): string {
    return calculate(args.expression);
  }

  cancel_pending_order(args: { order_id: string; reason: string }): Order {
    const order = this.order(args.order_id);
    if (order.status !== 'pending') fail('Non-pending order cannot be cancelled');
    if (!CANCEL_REASONS.has(args.reason)) fail('Invalid reason');
    const refunds = order.payment_history.map((payment) => {
      const method = this.paymentMethod(this.user(order.user_id).user_id, payment.payment_method_id);
      if (method.source === 'gift_card') method.balance = pyRound2(method.balance + payment.amount);
      return {
        transaction_type: 'refund' as const,
        amount: payment.amount,
        payment_method_id: payment.payment_method_id,
      };
    });
    order.status = 'cancelled';
    order.cancel_reason = args.reason;
    order.payment_history.push(...refunds);
    return order;
  }

  exchange_delivered_order_items(args: {
    order_id: string;
    item_ids: string[];
    new_item_ids: string[];
    payment_method_id: string;
  }): Order {
    const order = this.order(args.order_id);
    if (order.status !== 'delivered') fail('Non-delivered order cannot be exchanged');
    this.checkItemsInOrder(order, args.item_ids, (id) => `Number of ${id} not found.`);
    if (args.item_ids.length !== args.new_item_ids.length) fail('The number of items to be exchanged should match.');
    let diff = 0;
    for (const [k, itemId] of args.item_ids.entries()) {
      const newId = args.new_item_ids[k] as string;
      const item = order.items.find((i) => i.item_id === itemId) ?? fail(`Item ${itemId} not found`);
      const variant = this.variant(item.product_id, newId);
      if (!variant.available) fail(`New item ${newId} not found or available`);
      diff += variant.price - item.price;
    }
    diff = pyRound2(diff);
    const method = this.paymentMethod(order.user_id, args.payment_method_id);
    if (method.source === 'gift_card' && method.balance < diff)
      fail('Insufficient gift card balance to pay for the price difference');
    order.status = 'exchange requested';
    order.exchange_items = [...args.item_ids].sort();
    order.exchange_new_items = [...args.new_item_ids].sort();
    order.exchange_payment_method_id = args.payment_method_id;
    order.exchange_price_difference = diff;
    return order;
  }

  find_user_id_by_name_zip(args: { first_name: string; last_name: string; zip: string }): string {
    for (const [id, user] of Object.entries(this.db.users))
      if (
        pyLower(user.name.first_name) === pyLower(args.first_name) &&
        pyLower(user.name.last_name) === pyLower(args.last_name) &&
        user.address.zip === args.zip
      )
        return id;
    return fail('User not found');
  }

  find_user_id_by_email(args: { email: string }): string {
    for (const [id, user] of Object.entries(this.db.users)) if (pyLower(user.email) === pyLower(args.email)) return id;
    return fail('User not found');
  }

  get_order_details(args: { order_id: string }): Order {
    return this.order(args.order_id);
  }

  get_product_details(args: { product_id: string }): Product {
    return this.product(args.product_id);
  }

  get_item_details(args: { item_id: string }): Variant {
    for (const product of Object.values(this.db.products))
      if (Object.hasOwn(product.variants, args.item_id)) return product.variants[args.item_id] as Variant;
    return fail('Item not found');
  }

  get_user_details(args: { user_id: string }): User {
    return this.user(args.user_id);
  }

  /** Product name → id, as a JSON text sorted by name (a later product of the same name wins). */
  list_all_product_types(): Record<string, string> {
    const byName: Record<string, string> = {};
    for (const p of Object.values(this.db.products)) byName[p.name] = p.product_id;
    return byName;
  }

  modify_pending_order_address(args: { order_id: string } & AddressArgs): Order {
    const order = this.order(args.order_id);
    if (!order.status.includes('pending')) fail('Non-pending order cannot be modified');
    order.address = address(args);
    return order;
  }

  /**
   * Upstream quirks kept on purpose: the price difference is not rounded before it is
   * recorded; every modified item takes the price and options of the LAST new variant in
   * the list; each old id is looked up again after earlier items were renamed.
   */
  modify_pending_order_items(args: {
    order_id: string;
    item_ids: string[];
    new_item_ids: string[];
    payment_method_id: string;
  }): Order {
    const order = this.order(args.order_id);
    if (order.status !== 'pending') fail('Non-pending order cannot be modified');
    this.checkItemsInOrder(order, args.item_ids, (id) => `${id} not found`);
    if (args.item_ids.length !== args.new_item_ids.length) fail('The number of items to be exchanged should match');
    let diff = 0;
    let variant: Variant | undefined;
    for (const [k, itemId] of args.item_ids.entries()) {
      const newId = args.new_item_ids[k] as string;
      if (itemId === newId) fail('The new item id should be different from the old item id');
      const item = order.items.find((i) => i.item_id === itemId) ?? fail(`Item ${itemId} not found`);
      variant = this.variant(item.product_id, newId);
      if (!variant.available) fail(`New item ${newId} not found or available`);
      diff += variant.price - item.price;
    }
    const method = this.paymentMethod(order.user_id, args.payment_method_id);
    if (method.source === 'gift_card' && method.balance < diff)
      fail('Insufficient gift card balance to pay for the new item');
    order.payment_history.push({
      transaction_type: diff > 0 ? 'payment' : 'refund',
      amount: Math.abs(diff),
      payment_method_id: args.payment_method_id,
    });
    if (method.source === 'gift_card') method.balance = pyRound2(method.balance - diff);
    const last = variant as Variant;
    for (const [k, itemId] of args.item_ids.entries()) {
      const item = order.items.find((i) => i.item_id === itemId) ?? fail(`Item ${itemId} not found`);
      item.item_id = args.new_item_ids[k] as string;
      item.price = last.price;
      item.options = last.options;
    }
    order.status = 'pending (item modified)';
    return order;
  }

  modify_pending_order_payment(args: { order_id: string; payment_method_id: string }): Order {
    const order = this.order(args.order_id);
    if (!order.status.includes('pending')) fail('Non-pending order cannot be modified');
    const method = this.paymentMethod(order.user_id, args.payment_method_id);
    const first = order.payment_history[0];
    if (order.payment_history.length !== 1 || first?.transaction_type !== 'payment')
      fail('There should be exactly one payment for a pending order');
    const original = first as NonNullable<typeof first>;
    if (original.payment_method_id === args.payment_method_id)
      fail('The new payment method should be different from the current one');
    const amount = original.amount;
    if (method.source === 'gift_card' && method.balance < amount)
      fail('Insufficient gift card balance to pay for the order');
    order.payment_history.push(
      { transaction_type: 'payment', amount, payment_method_id: args.payment_method_id },
      { transaction_type: 'refund', amount, payment_method_id: original.payment_method_id },
    );
    if (method.source === 'gift_card') method.balance = pyRound2(method.balance - amount);
    const old = this.paymentMethod(order.user_id, original.payment_method_id);
    if (old.source === 'gift_card') old.balance = pyRound2(old.balance + amount);
    return order;
  }

  modify_user_address(args: { user_id: string } & AddressArgs): User {
    const user = this.user(args.user_id);
    user.address = address(args);
    return user;
  }

  return_delivered_order_items(args: { order_id: string; item_ids: string[]; payment_method_id: string }): Order {
    const order = this.order(args.order_id);
    if (order.status !== 'delivered') fail('Non-delivered order cannot be returned');
    const user = this.user(order.user_id);
    const method = this.paymentMethod(user.user_id, args.payment_method_id);
    if (method.source !== 'gift_card' && args.payment_method_id !== firstPayment(order).payment_method_id)
      fail('Payment method should be the original payment method');
    this.checkItemsInOrder(order, args.item_ids, () => 'Some item not found');
    order.status = 'return requested';
    order.return_items = [...args.item_ids].sort();
    order.return_payment_method_id = args.payment_method_id;
    return order;
  }

  transfer_to_human_agents(_args: { summary: string }): string {
    return 'Transfer successful';
  }
}

/** `order.payment_history[0]`, failing as Python's indexing does on an empty list. */
const firstPayment = (order: Order): Order['payment_history'][number] =>
  order.payment_history[0] ?? fail('list index out of range');

/** Python's str.lower() for the ASCII data here; JS lower-casing agrees on it. */
const pyLower = (s: string): string => s.toLowerCase();
