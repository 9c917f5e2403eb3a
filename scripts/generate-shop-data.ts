// Generates shop-data.json deterministically (a seeded PRNG), so the demo's numbers
// never change. Run: node scripts/generate-shop-data.ts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let seed = 20260701;
const rand = (): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
const day = (iso: string, add: number): string =>
  new Date(Date.parse(iso) + add * 86_400_000).toISOString().slice(0, 10);

const regions = ['EU', 'NA', 'APAC'] as const;
const first = [
  'Ada',
  'Bruno',
  'Chen',
  'Dara',
  'Elif',
  'Femi',
  'Greta',
  'Hiro',
  'Ines',
  'Jonas',
  'Kemal',
  'Lena',
  'Mira',
  'Noor',
  'Oskar',
  'Priya',
];
const last = ['Novak', 'Silva', 'Meyer', 'Rossi', 'Kowalski', 'Okafor', 'Tanaka', 'Larsen', 'Dubois', 'Garcia'];
const carriers = ['DHL', 'UPS', 'FedEx', 'GLS', 'PostNL'];
const products = [
  ['SKU-100', 'Trail Runner Shoes', 89],
  ['SKU-101', 'Rain Jacket', 129],
  ['SKU-102', 'Merino Socks', 19],
  ['SKU-103', 'Headlamp', 39],
  ['SKU-104', 'Water Filter', 59],
  ['SKU-105', 'Camping Stove', 79],
  ['SKU-106', 'Sleeping Bag', 199],
  ['SKU-107', 'Tent 2P', 349],
  ['SKU-108', 'Trekking Poles', 69],
] as const;

const customers = Array.from({ length: 48 }, (_, i) => ({
  id: `C${String(i + 1).padStart(3, '0')}`,
  name: `${pick(first)} ${pick(last)}`,
  region: regions[i % 3]!,
  tier: pick(['standard', 'standard', 'plus', 'pro']),
  email: `customer${i + 1}@example.com`,
  since: day('2021-01-01', Math.floor(rand() * 1500)),
}));

const orders: unknown[] = [];
const shipments: unknown[] = [];
let orderNo = 1;
for (const c of customers) {
  const count = 4 + Math.floor(rand() * 9);
  for (let k = 0; k < count; k++) {
    const date = day('2026-01-01', Math.floor(rand() * 300));
    const lines = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
      const [sku, name, price] = pick(products);
      return { sku, name, qty: 1 + Math.floor(rand() * 3), unitPrice: price };
    });
    const total = lines.reduce((s, l) => s + l.qty * l.unitPrice, 0);
    const id = `O${String(orderNo++).padStart(5, '0')}`;
    orders.push({
      id,
      customerId: c.id,
      date,
      status: 'delivered',
      lines,
      total,
      currency: 'EUR',
      notes: rand() < 0.3 ? 'Leave at the front desk if nobody answers.' : '',
    });
    const promised = day(date, 3 + Math.floor(rand() * 4));
    const delay = rand() < 0.28 ? 1 + Math.floor(rand() * 6) : -Math.floor(rand() * 2);
    shipments.push({
      orderId: id,
      carrier: pick(carriers),
      trackingNumber: `TRK${Math.floor(rand() * 1e10)
        .toString()
        .padStart(10, '0')}`,
      promisedDate: promised,
      deliveredDate: day(promised, delay),
      events: [
        { at: day(date, 1), status: 'label created' },
        { at: day(date, 2), status: 'in transit' },
        { at: day(promised, delay), status: 'delivered' },
      ],
    });
  }
}

const out = fileURLToPath(new URL('../src/demo/shop-data.json', import.meta.url));
writeFileSync(out, `${JSON.stringify({ customers, orders, shipments })}\n`);
console.log(`wrote ${out}: ${customers.length} customers, ${orders.length} orders`);
