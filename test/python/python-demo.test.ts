// The demo's question (which carrier was late most often for EU customers in Q3 2026)
// answered by a Python program over the same shop tools and the same policy as the
// TypeScript program of the demo: the same answer from the same nested calls.
import { afterAll, describe, expect, it } from '@jest/globals';
import { lateDeliveries, shopTools } from '../../src/demo/index.ts';
import { createToolRuntime, deny, type ToolRuntime } from '../../src/index.ts';

const LATE_DELIVERIES_PYTHON = `
customers = list_customers(region="EU")
shipments = []
for c in customers:
    for o in list_orders(customerId=c["id"], from_="2026-07-01", to="2026-09-30"):
        shipments.append(get_shipment(orderId=o["id"]))
by_carrier = {}
for s in shipments:
    entry = by_carrier.get(s["carrier"], {"late": 0, "deliveries": 0})
    entry["deliveries"] += 1
    if s["deliveredDate"] > s["promisedDate"]:
        entry["late"] += 1
    by_carrier[s["carrier"]] = entry
carrier = sorted(by_carrier, key=lambda k: (-by_carrier[k]["late"], k))[0]
stats = by_carrier[carrier]
print(f"checked {len(shipments)} EU shipments from Q3 2026")
{"carrier": carrier, "late": stats["late"], "deliveries": stats["deliveries"], "lateShare": round(stats["late"] / stats["deliveries"], 3)}
`.trim();

const runtimes: ToolRuntime[] = [];
afterAll(async () => {
  await Promise.all(runtimes.map((rt) => rt.close()));
});

/** A shop runtime with the policy both programs meet: nested calls are recorded, writes denied. */
function shop(guest: 'typescript' | 'python'): { rt: ToolRuntime; nested: string[] } {
  const rt = createToolRuntime({ mode: 'ptc', guest, typecheck: 'error', sandbox: { isolation: 'in-process' } });
  runtimes.push(rt);
  for (const tool of shopTools()) rt.register(tool);
  const nested: string[] = [];
  rt.on('tools/pre-execute', (exec, next) => {
    if (exec.parent !== undefined) nested.push(exec.name);
    return exec.name === 'flag_order' ? deny('read-only agent') : next();
  });
  return { rt, nested };
}

describe("the demo's question in Python", () => {
  it("gives the TypeScript program's answer through the same calls and policy", async () => {
    const py = shop('python');
    const ts = shop('typescript');
    const run = (rt: ToolRuntime, code: string) =>
      rt.execute({ callId: 'demo', name: 'run_code', arguments: { description: lateDeliveries.question, code } });
    const [pyResult, tsResult] = [await run(py.rt, LATE_DELIVERIES_PYTHON), await run(ts.rt, lateDeliveries.program)];
    expect(pyResult.isError).toBe(false);
    expect(tsResult.isError).toBe(false);
    const pyValue = pyResult.value as { logs: string[]; result: unknown };
    expect(pyValue).toEqual(tsResult.value);
    expect(pyValue.result).toMatchObject({ carrier: expect.any(String), late: expect.any(Number) });
    expect([...py.nested].sort()).toEqual([...ts.nested].sort());
    expect(py.nested.length).toBeGreaterThan(10);
    // The policy is the same: a write the agent may not make is denied in Python too.
    const denied = await run(
      py.rt,
      'try:\n    flag_order(orderId="O00001", reason="late")\nexcept RuntimeError as e:\n    r = str(e)\nr',
    );
    expect((denied.value as { result: unknown }).result).toBe('DENIED: read-only agent');
  });
});
