// The run_code program a model writes at one decision point: it makes the segment's
// reads and returns only what the next decisions need — each coming write's arguments,
// derived in the program from the data by what the customer said (the order that holds
// the items they named, the item by name, the variant whose options are the old ones with
// the customer's changes, the payment method by kind), never an id the model has not seen.
// Ids the model has seen (in the customer's words or an earlier program's answer) are
// written as literals. Arithmetic is done in the program (no `calculate` calls).
import { mentions } from './agent-plan.ts';
import type { Order, OrderItem, RetailDb } from './retail-db.ts';
import type { GoldAction } from './tasks.ts';

const HELPERS: Readonly<Record<string, string>> = {
  same: 'const same = (a, b) => Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v);',
  itemOf:
    'const itemOf = (o, name, options) => o.items.find((i) => i.name === name && (options === undefined || same(i.options, options)));',
  variantOf:
    'const variantOf = (p, options) => Object.values(p.variants).find((v) => v.available && same(v.options, options));',
  orderWith:
    'const orderWith = (orders, status, names) => orders.find((o) => o.status === status && names.every((n) => o.items.some((i) => i.name === n)));',
  orderHolding:
    'const orderHolding = (orders, status, items) => orders.find((o) => o.status === status && items.every((w) => o.items.some((i) => i.name === w.name && same(i.options, w.options))));',
  payWith:
    'const payWith = (u, want) => Object.values(u.payment_methods).find((m) => Object.entries(want).every(([k, v]) => m[k] === v)).id;',
};
const NEEDS: Readonly<Record<string, readonly string[]>> = {
  itemOf: ['same'],
  variantOf: ['same'],
  orderHolding: ['same'],
};

const lit = (v: unknown): string => JSON.stringify(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Writes the program for one segment; throws when an id cannot be derived (a planning bug, reported as a failure). */
export class ProgramWriter {
  private readonly lines: string[] = [];
  private readonly helpers = new Set<string>();
  private readonly userIds = new Map<string, string>();
  private readonly users = new Map<string, string>();
  private readonly orderLists = new Map<string, string>();
  private readonly orders = new Map<string, string>();
  private readonly products = new Map<string, string>();
  private readonly facts: { readonly text: string; readonly productId?: string }[] = [];
  private readonly writeProducts = new Set<string>();
  /** Products found by name in the product list: the customer asked about them. */
  private readonly askedProducts = new Set<string>();
  private readonly writes: string[] = [];
  private types: string | undefined;
  private vars = 0;

  /** `db`: the database as the program will find it; `seen`: all the model has read so far. */
  private readonly db: RetailDb;
  private readonly seen: string;

  constructor(db: RetailDb, seen: string) {
    this.db = db;
    this.seen = seen;
  }

  private use(helper: string): string {
    for (const n of NEEDS[helper] ?? []) this.use(n);
    this.helpers.add(helper);
    return helper;
  }

  private fresh(prefix: string): string {
    return `${prefix}${++this.vars}`;
  }

  private known(id: string): boolean {
    return mentions(this.seen, id);
  }

  private userIdExpr(userId: string): string {
    if (this.known(userId)) return lit(userId);
    const v = this.userIds.get(userId);
    if (v !== undefined) return v;
    for (const [orderId, ov] of this.orders) if (this.db.orders[orderId]?.user_id === userId) return `${ov}.user_id`;
    throw new Error(`user id ${userId} is neither known nor looked up`);
  }

  private userVar(userId: string): string {
    let v = this.users.get(userId);
    if (v === undefined) {
      v = this.fresh('user');
      this.lines.push(`const ${v} = await tools.get_user_details({ user_id: ${this.userIdExpr(userId)} });`);
      this.users.set(userId, v);
    }
    return v;
  }

  private orderListVar(userId: string): string {
    let v = this.orderLists.get(userId);
    if (v === undefined) {
      v = this.fresh('orders');
      const u = this.userVar(userId);
      this.lines.push(
        `const ${v} = await Promise.all(${u}.orders.map((order_id) => tools.get_order_details({ order_id })));`,
      );
      this.orderLists.set(userId, v);
    }
    return v;
  }

  /** The order as a program value: fetched by the id the model knows, or picked from the user's orders. */
  orderVar(orderId: string, hints: readonly string[] = []): string {
    const have = this.orders.get(orderId);
    if (have !== undefined) return have;
    const order = this.db.orders[orderId];
    if (order === undefined) throw new Error(`no order ${orderId}`);
    const v = this.fresh('order');
    if (this.known(orderId)) {
      this.lines.push(`const ${v} = await tools.get_order_details({ order_id: ${lit(orderId)} });`);
    } else {
      const list = this.orderListVar(order.user_id);
      const names = this.orderNames(order, hints);
      if (names !== undefined)
        this.lines.push(`const ${v} = ${this.use('orderWith')}(${list}, ${lit(order.status)}, ${lit(names)});`);
      else {
        // Same names in several orders: the customer describes the items (their options) too.
        const items = order.items.filter((i) => hints.length === 0 || hints.includes(i.name)).slice(0, 1);
        const want = items.map((i) => ({ name: i.name, options: i.options }));
        const others = (this.db.users[order.user_id]?.orders ?? [])
          .map((id) => this.db.orders[id])
          .filter(
            (o) =>
              o !== undefined &&
              o.status === order.status &&
              want.every((w) =>
                o.items.some((i) => i.name === w.name && JSON.stringify(i.options) === JSON.stringify(w.options)),
              ),
          );
        if (others.length !== 1) throw new Error(`order ${orderId}: not told apart from the user's other orders`);
        this.lines.push(`const ${v} = ${this.use('orderHolding')}(${list}, ${lit(order.status)}, ${lit(want)});`);
      }
    }
    this.orders.set(orderId, v);
    return v;
  }

  /** The fewest item names (the written items' first) that tell this order from the user's others of its status. */
  private orderNames(order: Order, hints: readonly string[]): string[] | undefined {
    const user = this.db.users[order.user_id];
    const others = (user?.orders ?? [])
      .map((id) => this.db.orders[id])
      .filter((o): o is Order => o !== undefined && o.status === order.status);
    const candidates = [...new Set([...hints, ...order.items.map((i) => i.name)])];
    const names: string[] = [];
    const matches = (o: Order): boolean => names.every((n) => o.items.some((i) => i.name === n));
    for (const name of candidates) {
      names.push(name);
      if (others.filter(matches).length === 1) break;
    }
    const picked = others.filter(matches);
    return picked.length === 1 && picked[0] === order ? names : undefined;
  }

  /** An item of an order, by name (and options when the name repeats with other options). */
  private itemExpr(orderVar: string, order: Order, item: OrderItem): string {
    const sameName = order.items.filter((i) => i.name === item.name);
    const distinct = new Set(sameName.map((i) => i.item_id));
    const helper = this.use('itemOf');
    return distinct.size > 1
      ? `${helper}(${orderVar}, ${lit(item.name)}, ${lit(item.options)})`
      : `${helper}(${orderVar}, ${lit(item.name)})`;
  }

  private productVar(productId: string, via?: { orderVar: string; order: Order }): string {
    let v = this.products.get(productId);
    if (v === undefined) {
      v = this.fresh('product');
      this.lines.push(
        `const ${v} = await tools.get_product_details({ product_id: ${this.productIdExpr(productId, via)} });`,
      );
      this.products.set(productId, v);
    }
    return v;
  }

  private productIdExpr(productId: string, via?: { orderVar: string; order: Order }): string {
    if (this.known(productId)) return lit(productId);
    const item = via?.order.items.find((i) => i.product_id === productId);
    if (via !== undefined && item !== undefined) return `${this.itemExpr(via.orderVar, via.order, item)}.product_id`;
    for (const [orderId, ov] of this.orders) {
      const order = this.db.orders[orderId];
      const it = order?.items.find((i) => i.product_id === productId);
      if (order !== undefined && it !== undefined) return `${this.itemExpr(ov, order, it)}.product_id`;
    }
    const product = this.db.products[productId];
    if (product === undefined) throw new Error(`no product ${productId}`);
    if (this.types === undefined) {
      this.types = this.fresh('types');
      this.lines.push(`const ${this.types} = await tools.list_all_product_types({});`);
    }
    this.askedProducts.add(productId);
    return `${this.types}[${lit(product.name)}]`;
  }

  private paymentExpr(paymentId: string, userId: string, orderVar?: string, order?: Order): string {
    if (this.known(paymentId)) return lit(paymentId);
    if (orderVar !== undefined && order?.payment_history[0]?.payment_method_id === paymentId)
      return `${orderVar}.payment_history[0].payment_method_id`;
    const user = this.db.users[userId];
    const method = user?.payment_methods[paymentId];
    if (user === undefined || method === undefined) throw new Error(`no payment method ${paymentId} of ${userId}`);
    const all = Object.values(user.payment_methods);
    const want: Record<string, string> = { source: method.source };
    const fits = (m: (typeof all)[number]): boolean =>
      Object.entries(want).every(([k, x]) => (m as unknown as Record<string, unknown>)[k] === x);
    for (const key of ['brand', 'last_four'] as const)
      if (all.filter(fits).length > 1 && key in method) want[key] = (method as Record<string, string>)[key] as string;
    if (all.filter(fits).length !== 1) throw new Error(`payment method ${paymentId}: not told apart by kind`);
    return `${this.use('payWith')}(${this.userVar(userId)}, ${lit(want)})`;
  }

  /** One read of the segment. */
  read(a: GoldAction, result: unknown): void {
    const args = a.arguments;
    switch (a.name) {
      case 'find_user_id_by_email':
      case 'find_user_id_by_name_zip': {
        const userId = str(result);
        if (userId === '' || this.userIds.has(userId)) return;
        const v = this.fresh('uid');
        this.lines.push(`const ${v} = await tools.${a.name}(${lit(args)});`);
        this.userIds.set(userId, v);
        return;
      }
      case 'get_user_details':
        this.userVar(str(args.user_id));
        return;
      case 'get_order_details': {
        const orderId = str(args.order_id);
        const order = this.db.orders[orderId];
        if (order === undefined) return;
        if (this.known(orderId)) this.orderVar(orderId);
        else this.orderListVar(order.user_id);
        return;
      }
      case 'get_product_details': {
        const productId = str(args.product_id);
        if (this.db.products[productId] === undefined) return; // a failing read: nothing to learn
        const p = this.productVar(productId);
        // Informational unless a write uses it: how many variants are in stock.
        const name = this.db.products[productId]?.name ?? productId;
        this.facts.push({
          text: `${lit(`${name} in stock`)}: Object.values(${p}.variants).filter((v) => v.available).length`,
          productId,
        });
        return;
      }
      case 'get_item_details': {
        const itemId = str(args.item_id);
        const product = Object.values(this.db.products).find((p) => Object.hasOwn(p.variants, itemId));
        if (product === undefined) return;
        const p = this.productVar(product.product_id);
        const options = product.variants[itemId]?.options ?? {};
        const v = this.fresh('item');
        this.lines.push(
          `const ${v} = ${this.use('variantOf')}(${p}, ${lit(options)}) ?? Object.values(${p}.variants).find((x) => ${this.use('same')}(x.options, ${lit(options)}));`,
        );
        this.facts.push({ text: `${lit(`item ${itemId}`)}: { price: ${v}.price, available: ${v}.available }` });
        return;
      }
      case 'list_all_product_types':
        if (this.types === undefined) {
          this.types = this.fresh('types');
          this.lines.push(`const ${this.types} = await tools.list_all_product_types({});`);
        }
        return;
      case 'transfer_to_human_agents': {
        const v = this.fresh('transfer');
        this.lines.push(`const ${v} = await tools.transfer_to_human_agents(${lit(args)});`);
        this.facts.push({ text: `transfer: ${v}` });
        return;
      }
      default:
        return; // calculate: the program does its own arithmetic
    }
  }

  /** One coming write: its arguments derived in the program, returned for the confirmation. */
  write(a: GoldAction): void {
    const args = a.arguments;
    const entries: string[] = [];
    const orderId = str(args.order_id);
    const order = this.db.orders[orderId];
    let extra = '';
    if (order !== undefined) {
      const olds = strs(args.item_ids).map((id) => order.items.find((i) => i.item_id === id));
      const hints = olds.flatMap((i) => (i === undefined ? [] : [i.name]));
      const ov = this.orderVar(orderId, hints);
      entries.push(`order_id: ${this.known(orderId) ? lit(orderId) : `${ov}.order_id`}`);
      if (Object.hasOwn(args, 'item_ids')) {
        const oldVar = this.fresh('old');
        this.lines.push(
          `const ${oldVar} = [${olds.map((i) => (i === undefined ? 'undefined' : this.itemExpr(ov, order, i))).join(', ')}];`,
        );
        entries.push(`item_ids: ${oldVar}.map((i) => i.item_id)`);
        if (Object.hasOwn(args, 'new_item_ids')) {
          const newVar = this.fresh('new');
          const news = strs(args.new_item_ids).map((newId, k) => {
            const old = olds[k];
            const variant = old === undefined ? undefined : this.db.products[old.product_id]?.variants[newId];
            if (old === undefined || variant === undefined)
              throw new Error(`new item ${newId}: no old item or variant`);
            const changes = Object.fromEntries(
              Object.entries(variant.options).filter(([key, value]) => old.options[key] !== value),
            );
            const p = this.productVar(old.product_id, { orderVar: ov, order });
            this.writeProducts.add(old.product_id);
            const want =
              Object.keys(changes).length === 0
                ? `${oldVar}[${k}].options`
                : `{ ...${oldVar}[${k}].options, ${Object.entries(changes)
                    .map(([key, value]) => `${lit(key)}: ${lit(value)}`)
                    .join(', ')} }`;
            return `${this.use('variantOf')}(${p}, ${want})`;
          });
          this.lines.push(`const ${newVar} = [${news.join(', ')}];`);
          entries.push(`new_item_ids: ${newVar}.map((v) => v.item_id)`);
          extra = `, difference: Math.round(${newVar}.reduce((s, v, k) => s + v.price - ${oldVar}[k].price, 0) * 100) / 100`;
        }
      }
      const pay = str(args.payment_method_id);
      if (pay !== '') entries.push(`payment_method_id: ${this.paymentExpr(pay, order.user_id, ov, order)}`);
    } else if (Object.hasOwn(args, 'user_id')) {
      entries.push(`user_id: ${this.userIdExpr(str(args.user_id))}`);
    }
    const derived = new Set(['order_id', 'item_ids', 'new_item_ids', 'payment_method_id', 'user_id']);
    for (const [key, value] of Object.entries(args)) if (!derived.has(key)) entries.push(`${lit(key)}: ${lit(value)}`);
    this.writes.push(`{ tool: ${lit(a.name)}, args: { ${entries.join(', ')} }${extra} }`);
  }

  /** The whole program text; `before`: lines that run first (a confirmed write), `answerFirst`: their part of the answer. */
  text(before: readonly string[] = [], answerFirst: readonly string[] = []): string {
    const order = ['same', 'itemOf', 'variantOf', 'orderWith', 'orderHolding', 'payWith'].filter((h) =>
      this.helpers.has(h),
    );
    const answer: string[] = [...answerFirst];
    // The customer's account, for the decisions after this one.
    for (const v of this.userIds.values()) answer.push(`user_id: ${v}`);
    if (this.writes.length > 0) answer.push(`writes: [${this.writes.join(', ')}]`);
    // A product a write uses needs no summary of its own, unless the customer asked about it.
    const facts = this.facts.filter(
      (f) => f.productId === undefined || !this.writeProducts.has(f.productId) || this.askedProducts.has(f.productId),
    );
    if (facts.length > 0) answer.push(`facts: { ${facts.map((f) => f.text).join(', ')} }`);
    return [
      ...order.map((h) => HELPERS[h] as string),
      ...before,
      ...this.lines,
      `return { ${answer.join(', ')} };`,
    ].join('\n');
  }
}
