// The calls a model needs for a task: the gold actions, with the reads a real model has to
// make first inserted wherever the gold list takes an id for granted (many tasks list only
// their writes). A call's ids must be in the conversation before it is made: a user id
// comes from a lookup by email (when the customer gave it) or by name and zip; the orders
// a customer did not name are all read, as the model must read them to tell which one is
// meant; a new item id comes from its product's details; a product no order shows, from
// the product list. Both native and run_code replay these plans.
import { callStore } from './grade.ts';
import { openingMessage } from './plan.ts';
import { parseDb } from './retail-db.ts';
import { RetailStore } from './retail-store.ts';
import type { GoldAction, RetailTask } from './tasks.ts';
import { resultText, WRITE_TOOLS } from './tools.ts';

/** Whether `id` occurs in `text` as a whole token (not inside a longer id or number). */
export function mentions(text: string, id: string): boolean {
  let at = text.indexOf(id);
  while (at >= 0) {
    const before = text[at - 1] ?? ' ';
    const after = text[at + id.length] ?? ' ';
    if (!/[\w#]/.test(before) && !/\w/.test(after)) return true;
    at = text.indexOf(id, at + 1);
  }
  return false;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export function plannedActions(task: RetailTask, dbText: string, ranks: ReadonlyMap<string, number>): GoldAction[] {
  const store = new RetailStore(parseDb(dbText));
  const db = store.db;
  const opening = openingMessage(task);
  let seen = opening;
  const readOrders = new Set<string>();
  const out: GoldAction[] = [];
  const visible = (id: string): boolean => mentions(seen, id);

  const perform = (a: GoldAction): void => {
    const r = callStore(store, a.name, a.arguments);
    seen += `\n${r.error !== undefined ? `Error: ${r.error}` : resultText(a.name, r.value, ranks)}`;
    if (a.name === 'get_order_details' && r.error === undefined) readOrders.add(str(a.arguments.order_id));
    out.push(a);
  };
  const add = (name: string, args: Record<string, unknown>): void => {
    const a: GoldAction = { action_id: `planned_${out.length}`, name, arguments: args };
    prepare(a);
    perform(a);
  };

  const knowUser = (userId: string): void => {
    if (visible(userId) || db.users[userId] === undefined) return;
    const user = db.users[userId];
    if (opening.toLowerCase().includes(user.email.toLowerCase())) add('find_user_id_by_email', { email: user.email });
    else
      add('find_user_id_by_name_zip', {
        first_name: user.name.first_name,
        last_name: user.name.last_name,
        zip: user.address.zip,
      });
  };
  const readUser = (userId: string): void => {
    knowUser(userId);
    add('get_user_details', { user_id: userId });
  };
  /** The order's contents are in the conversation: read it, or all the user's orders if the customer did not name it. */
  const knowOrder = (orderId: string): void => {
    const order = db.orders[orderId];
    if (order === undefined || readOrders.has(orderId)) return;
    if (mentions(opening, orderId)) {
      add('get_order_details', { order_id: orderId });
      return;
    }
    const user = db.users[order.user_id];
    if (user === undefined) return;
    if (!visible(orderId)) readUser(order.user_id);
    for (const id of user.orders) if (!readOrders.has(id)) add('get_order_details', { order_id: id });
  };
  const knowProduct = (productId: string): void => {
    if (!visible(productId)) add('list_all_product_types', {});
  };
  const knowVariantOf = (productId: string, itemId: string): void => {
    if (visible(itemId)) return;
    knowProduct(productId);
    add('get_product_details', { product_id: productId });
  };

  function prepare(a: GoldAction): void {
    const args = a.arguments;
    const orderId = str(args.order_id);
    const order = db.orders[orderId];
    const userId = str(args.user_id) || (order?.user_id ?? '');
    if (a.name === 'get_user_details' || a.name === 'modify_user_address') knowUser(userId);
    if (a.name === 'get_order_details' && !visible(orderId) && order !== undefined) {
      if (!visible(order.user_id)) knowUser(order.user_id);
      readUser(order.user_id);
    }
    if (WRITE_TOOLS.has(a.name) && order !== undefined) {
      knowUser(order.user_id);
      knowOrder(orderId);
      const olds = strs(args.item_ids);
      strs(args.new_item_ids).forEach((newId, k) => {
        const old = order.items.find((i) => i.item_id === olds[k]);
        if (old !== undefined) knowVariantOf(old.product_id, newId);
      });
    }
    const pay = str(args.payment_method_id);
    if (pay !== '' && !visible(pay) && userId !== '') readUser(userId);
    if (a.name === 'get_product_details') knowProduct(str(args.product_id));
    if (a.name === 'get_item_details' && !visible(str(args.item_id))) {
      const product = Object.values(db.products).find((p) => Object.hasOwn(p.variants, str(args.item_id)));
      if (product !== undefined) knowVariantOf(product.product_id, str(args.item_id));
    }
  }

  for (const a of task.evaluation_criteria.actions) {
    prepare(a);
    perform(a);
  }
  return out;
}
