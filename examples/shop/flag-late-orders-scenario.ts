// A bulk update with verification: flag every Q3 2026 order of an EU customer that was
// delivered after its promised date, then re-read those customers' orders to check
// that each flag is there. flag_order mutates, so its calls run one at a time.
import type { Scenario } from 'ptc-runtime/demo';
import { readJson } from 'ptc-runtime/demo';

const FROM = '2026-07-01';
const TO = '2026-09-30';
const REASON = 'late delivery (Q3 review)';

interface Order {
  id: string;
  customerId: string;
  flags?: string[];
}
interface Shipment {
  orderId: string;
  promisedDate: string;
  deliveredDate: string;
}

export const flagLateOrdersScenario: Scenario = {
  name: 'flag-late-orders',
  question:
    'Flag every Q3 2026 order of an EU customer that was delivered late for review, then verify that each of them carries the flag.',
  *native() {
    const [customersResult] = yield [{ name: 'list_customers', arguments: { region: 'EU' } }];
    const customers = readJson<{ id: string }[]>(customersResult!);
    const orderResults = yield customers.map((c) => ({
      name: 'list_orders',
      arguments: { customerId: c.id, from: FROM, to: TO },
    }));
    const orders = orderResults.flatMap((r) => readJson<Order[]>(r));
    const shipmentResults = yield orders.map((o) => ({ name: 'get_shipment', arguments: { orderId: o.id } }));
    const late = shipmentResults.map((r) => readJson<Shipment>(r)).filter((s) => s.deliveredDate > s.promisedDate);
    const lateOrders = orders.filter((o) => late.some((s) => s.orderId === o.id));
    yield lateOrders.map((o) => ({ name: 'flag_order', arguments: { orderId: o.id, reason: REASON } }));
    const affected = [...new Set(lateOrders.map((o) => o.customerId))];
    const recheck = yield affected.map((id) => ({
      name: 'list_orders',
      arguments: { customerId: id, from: FROM, to: TO },
    }));
    const flagged = new Set(
      recheck
        .flatMap((r) => readJson<Order[]>(r))
        .filter((o) => (o.flags ?? []).includes(REASON))
        .map((o) => o.id),
    );
    const orderIds = lateOrders.map((o) => o.id).sort();
    return { flagged: orderIds.length, verified: orderIds.filter((id) => flagged.has(id)).length, orderIds };
  },
  program: `
const customers = await tools.list_customers({ region: 'EU' });
const orders = (await Promise.all(customers.map((c) => tools.list_orders({ customerId: c.id, from: '${FROM}', to: '${TO}' })))).flat();
const shipments = await Promise.all(orders.map((o) => tools.get_shipment({ orderId: o.id })));
const lateIds = new Set(shipments.filter((s) => s.deliveredDate > s.promisedDate).map((s) => s.orderId));
const lateOrders = orders.filter((o) => lateIds.has(o.id));
for (const o of lateOrders) await tools.flag_order({ orderId: o.id, reason: '${REASON}' });
const affected = [...new Set(lateOrders.map((o) => o.customerId))];
const recheck = (await Promise.all(affected.map((id) => tools.list_orders({ customerId: id, from: '${FROM}', to: '${TO}' })))).flat();
const flagged = new Set(recheck.filter((o) => (o.flags ?? []).includes('${REASON}')).map((o) => o.id));
const orderIds = lateOrders.map((o) => o.id).sort();
console.log(\`flagged \${orderIds.length} of \${orders.length} EU Q3 orders\`);
return { flagged: orderIds.length, verified: orderIds.filter((id) => flagged.has(id)).length, orderIds };
`.trim(),
};
