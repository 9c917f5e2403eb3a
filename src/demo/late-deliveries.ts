// The demo question: which carrier was late most often for EU customers in Q3 2026,
// and what share of its EU Q3 deliveries were late? Needs every EU customer's Q3
// orders and each order's shipment: dozens of tool results, filtered and aggregated.
import type { Scenario } from './scenario.ts';
import { readJson } from './scenario.ts';

const FROM = '2026-07-01';
const TO = '2026-09-30';

interface Answer {
  carrier: string;
  late: number;
  deliveries: number;
  lateShare: number;
}

/** The aggregation both ways share in spirit (the program carries its own copy as text). */
function summarize(shipments: readonly { carrier: string; promisedDate: string; deliveredDate: string }[]): Answer {
  const byCarrier = new Map<string, { late: number; deliveries: number }>();
  for (const s of shipments) {
    const entry = byCarrier.get(s.carrier) ?? { late: 0, deliveries: 0 };
    entry.deliveries += 1;
    if (s.deliveredDate > s.promisedDate) entry.late += 1;
    byCarrier.set(s.carrier, entry);
  }
  const [carrier, stats] = [...byCarrier].sort((a, b) => b[1].late - a[1].late || a[0].localeCompare(b[0]))[0]!;
  return {
    carrier,
    late: stats.late,
    deliveries: stats.deliveries,
    lateShare: Math.round((stats.late / stats.deliveries) * 1000) / 1000,
  };
}

export const lateDeliveries: Scenario = {
  name: 'late-deliveries',
  question:
    'Which carrier had the most late deliveries to EU customers in Q3 2026, and what share of its EU Q3 deliveries were late?',
  *native() {
    const [customersResult] = yield [{ name: 'list_customers', arguments: { region: 'EU' } }];
    const customers = readJson<{ id: string }[]>(customersResult!);
    const orderResults = yield customers.map((c) => ({
      name: 'list_orders',
      arguments: { customerId: c.id, from: FROM, to: TO },
    }));
    const orders = orderResults.flatMap((r) => readJson<{ id: string }[]>(r));
    const shipmentResults = yield orders.map((o) => ({ name: 'get_shipment', arguments: { orderId: o.id } }));
    return {
      ...summarize(
        shipmentResults.map((r) => readJson<{ carrier: string; promisedDate: string; deliveredDate: string }>(r)),
      ),
    };
  },
  program: `
const customers = await tools.list_customers({ region: 'EU' });
const orderLists = await Promise.all(
  customers.map((c) => tools.list_orders({ customerId: c.id, from: '${FROM}', to: '${TO}' })),
);
const shipments = await Promise.all(orderLists.flat().map((o) => tools.get_shipment({ orderId: o.id })));
const byCarrier = new Map<string, { late: number; deliveries: number }>();
for (const s of shipments) {
  const entry = byCarrier.get(s.carrier) ?? { late: 0, deliveries: 0 };
  entry.deliveries += 1;
  if (s.deliveredDate > s.promisedDate) entry.late += 1;
  byCarrier.set(s.carrier, entry);
}
const [carrier, stats] = [...byCarrier].sort((a, b) => b[1].late - a[1].late || a[0].localeCompare(b[0]))[0];
console.log(\`checked \${shipments.length} EU shipments from Q3 2026\`);
return { carrier, late: stats.late, deliveries: stats.deliveries, lateShare: Math.round((stats.late / stats.deliveries) * 1000) / 1000 };
`.trim(),
};
