// The second half of `ptc demo`: a durable run. flag_order (it changes data) needs a
// human's approval; the approval service answers "pause", so the program stops with
// all three flag_order calls pending at once. The runtime is then closed — as if the
// host were redeployed — and a fresh runtime on the same journal approves two, denies
// one and resumes: the reads are answered from the journal, only the approved writes run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ask } from '../pipeline/decisions.ts';
import { createToolRuntime, type ToolRuntime } from '../runtime/create-tool-runtime.ts';
import type { PausedRun } from '../ptc/paused-run-text.ts';
import { shopTools } from './shop-tools.ts';

const PROGRAM = `const customers = await tools.list_customers({ region: 'EU' });
const orders = (await Promise.all(customers.slice(0, 3).map((c) => tools.list_orders({ customerId: c.id })))).map((o) => o[0]).filter(Boolean);
const results = await Promise.allSettled(orders.map((o) => tools.flag_order({ orderId: o.id, reason: 'quarterly review' })));
return results.map((r, i) => orders[i].id + ': ' + (r.status === 'fulfilled' ? 'flagged' : r.reason.code));`;

/** A host: the shop tools, flag_order gated, approvals paused, on the journal at `path`. Counts body runs. */
function host(path: string, bodies: Map<string, number>): ToolRuntime {
  const rt = createToolRuntime({ journal: path, mode: 'ptc', approval: { request: async () => 'pause' } });
  for (const tool of shopTools()) rt.register(tool);
  rt.on('tools/pre-execute', async (exec, next) =>
    exec.name === 'flag_order'
      ? ask({ title: `Flag order ${(exec.arguments as { orderId: string }).orderId}?` })
      : next(),
  );
  rt.on('tools/execute', async (exec, next) => {
    bodies.set(exec.name, (bodies.get(exec.name) ?? 0) + 1);
    return next();
  });
  return rt;
}

export async function runApprovalDemo(out: (text: string) => void): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'ptc-demo-'));
  const journal = join(dir, 'journal.jsonl');
  const bodies = new Map<string, number>();
  try {
    out('\nDurable run: flag_order needs approval, and the approval service answers "pause".\n');
    const first = host(journal, bodies);
    const paused = await first.execute({
      callId: 'demo-run',
      name: 'run_code',
      arguments: { description: 'Flag the first order of three EU customers', code: PROGRAM },
    });
    await first.close();
    const state = (paused.value as { paused?: PausedRun } | undefined)?.paused;
    if (state === undefined) {
      out(`expected a paused run, got: ${JSON.stringify(paused.content)}\n`);
      return false;
    }
    out(`${(paused.content[0] as { text: string }).text}\n`);
    out('\nThe host is closed; a fresh runtime on the same journal lists the run and resumes it:\n');
    const second = host(journal, bodies);
    const listed = await second.runs();
    out(
      `rt.runs(): ${listed.map((r) => `${r.runId.slice(0, 8)}… ${r.status}, ${r.pending.length} pending`).join('; ')}\n`,
    );
    const [a, b, c] = state.pending;
    const decisions = { [a!.callId]: 'approve', [b!.callId]: 'approve', [c!.callId]: 'deny' } as const;
    out(
      `rt.resume(runId, { ${Object.entries(decisions)
        .map(([k, v]) => `'${k}': '${v}'`)
        .join(', ')} })\n`,
    );
    const final = await second.resume(state.runId, decisions);
    await second.close();
    out(`${(final.content[0] as { text: string }).text}\n`);
    const reads = (bodies.get('list_customers') ?? 0) + (bodies.get('list_orders') ?? 0);
    out(
      `Tool bodies run: ${reads} reads (once each, before the pause), ${bodies.get('flag_order') ?? 0} flag_order (the approved ones).\n`,
    );
    return !final.isError && bodies.get('flag_order') === 2 && reads === 4;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
