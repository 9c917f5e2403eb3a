// Search, then fetch details: find the sleeping and cooking gear by name, pull every
// sale of each product, and rank them by Q3 2026 revenue. The native model reads every
// sales line of every product; the program returns the ranking only.
import type { Scenario } from 'ptc-runtime/demo';
import { readJson } from 'ptc-runtime/demo';

const FROM = '2026-07-01';
const TO = '2026-09-30';
const QUERY = 'tent sleeping stove';

interface Sale {
  date: string;
  qty: number;
  unitPrice: number;
}
interface Ranked {
  sku: string;
  name: string;
  units: number;
  revenue: number;
}

function rank(products: readonly { sku: string; name: string }[], sales: readonly (readonly Sale[])[]): Ranked[] {
  return products
    .map((p, i) => {
      const q3 = (sales[i] ?? []).filter((s) => s.date >= FROM && s.date <= TO);
      return {
        sku: p.sku,
        name: p.name,
        units: q3.reduce((n, s) => n + s.qty, 0),
        revenue: q3.reduce((n, s) => n + s.qty * s.unitPrice, 0),
      };
    })
    .sort((a, b) => b.revenue - a.revenue || a.sku.localeCompare(b.sku));
}

export const productRevenueScenario: Scenario = {
  name: 'product-revenue',
  question:
    'Of our tents, sleeping bags and stoves, which product earned the most revenue in Q3 2026, and how many units did each sell?',
  *native() {
    const [found] = yield [{ name: 'search_products', arguments: { query: QUERY } }];
    const products = readJson<{ sku: string; name: string }[]>(found!);
    const salesResults = yield products.map((p) => ({ name: 'get_product_sales', arguments: { sku: p.sku } }));
    const ranking = rank(
      products,
      salesResults.map((r) => readJson<Sale[]>(r)),
    );
    return { best: ranking[0]?.name ?? null, ranking: ranking.map((r) => ({ ...r })) };
  },
  program: `
const products = await tools.search_products({ query: '${QUERY}' });
const sales = await Promise.all(products.map((p) => tools.get_product_sales({ sku: p.sku })));
const ranking = products
  .map((p, i) => {
    const q3 = (sales[i] as { date: string; qty: number; unitPrice: number }[]).filter((s) => s.date >= '${FROM}' && s.date <= '${TO}');
    return { sku: p.sku, name: p.name, units: q3.reduce((n, s) => n + s.qty, 0), revenue: q3.reduce((n, s) => n + s.qty * s.unitPrice, 0) };
  })
  .sort((a, b) => b.revenue - a.revenue || a.sku.localeCompare(b.sku));
return { best: ranking[0]?.name ?? null, ranking };
`.trim(),
};
