// A stand-in for your own data access: the tools module imports it like any module.
export type Order = { id: string; customer: string; total: number; status: 'open' | 'shipped' };

const orders: readonly Order[] = [
  { id: 'o_1', customer: 'Ada', total: 120, status: 'shipped' },
  { id: 'o_2', customer: 'Grace', total: 75.5, status: 'open' },
];

export function lookupOrder(id: string): Order | null {
  return orders.find((order) => order.id === id) ?? null;
}
