// UTCP code-mode's crossing, bare: the guest blocks its isolate on applySyncPromise of an
// async host Reference, as @utcp/code-mode's tool functions do (JSON text both ways, the
// answer wrapped as { success, result }), with a trivial tool and no UTCP SDK in between.
// Prints the µs per call of `calls` sequential calls after a 50-call warm-up.
//   .tools/peers/utcp/node/bin/node --no-node-snapshot bench/peers/utcp-crossing-floor.mjs [calls]
// Env PTC_IVM_FROM: a package.json whose isolated-vm to load instead of the peer's
// (crossing-floors.ts runs it under this project's Node and isolated-vm too).
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const installDir = resolve(process.env.UTCP_PEER_DIR ?? join(here, '..', '..', '.tools', 'peers', 'utcp'));
const ivm = createRequire(process.env.PTC_IVM_FROM ?? join(installDir, 'package.json'))('isolated-vm');
const calls = Number(process.argv[2] ?? 1000);

const isolate = new ivm.Isolate({ memoryLimit: 128 });
const context = await isolate.createContext();
const tool = (args) => args.n;
await context.global.set(
  '__callToolRef',
  new ivm.Reference(async (toolName, argsJson) => {
    try {
      const result = await tool(JSON.parse(argsJson), toolName);
      return JSON.stringify({ success: true, result });
    } catch (error) {
      return JSON.stringify({ success: false, error: String(error) });
    }
  }),
);
const script = await isolate.compileScript(`
  const noop = function (args) {
    var resultJson = __callToolRef.applySyncPromise(undefined, ['tools.noop', JSON.stringify(args || {})]);
    var parsed = JSON.parse(resultJson);
    if (!parsed.success) throw new Error(parsed.error);
    return parsed.result;
  };
  globalThis.__main = async (n) => { let sum = 0; for (let i = 0; i < n; i++) sum += noop({ n: i }); return sum; };`);
await script.run(context);
const main = await context.global.get('__main', { reference: true });
await main.apply(undefined, [50], { result: { promise: true } });
const start = performance.now();
const sum = await main.apply(undefined, [calls], { result: { promise: true } });
const us = ((performance.now() - start) * 1000) / calls;
if (sum !== (calls * (calls - 1)) / 2) throw new Error(`wrong sum ${sum}`);
process.stdout.write(`${JSON.stringify({ us, node: process.version })}\n`);
isolate.dispose();
