// The UTCP code-mode peer: runs the bench's programs with @utcp/code-mode (isolated-vm 6)
// under Node 22, in its own process, because this project runs isolated-vm 7 on Node >= 24.
// Installed by bench/peers/install-utcp.sh; nothing of UTCP is in this repository.
//   .tools/peers/utcp/node/bin/node --no-node-snapshot bench/peers/utcp-peer.mjs           # measures, prints one JSON object
//   .tools/peers/utcp/node/bin/node --no-node-snapshot bench/peers/utcp-peer.mjs --serve   # JSON lines on stdin/stdout
// --serve is how `npm run bench` interleaves it with ptc-runtime's own runs: each request
// {"program":"trivial"|"kb"|"nested"|"nested2k"|"waitAll"} is answered with {"ms":…} timed
// here, so the pipe to the bench process is not part of the figure.
// Env UTCP_PEER_DIR: the install folder (default .tools/peers/utcp/ in the checkout).
import { readFileSync } from 'node:fs';
import { createRequire, stripTypeScriptTypes } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  DOUBLED_NESTED_CALLS,
  DOUBLED_NESTED_CALLS_PROGRAM,
  KB_PROGRAM,
  NESTED_CALLS,
  NESTED_CALLS_PROGRAM,
  sequentialCallsSum,
  TRIVIAL_PROGRAM,
  waitAllProgram,
} from '../bench-programs.ts';

const here = dirname(fileURLToPath(import.meta.url));
const installDir = resolve(process.env.UTCP_PEER_DIR ?? join(here, '..', '..', '.tools', 'peers', 'utcp'));

// UTCP's SDK logs a line per tool call with console.log; stdout is this driver's channel,
// and the figure should be the runtime's, not a terminal write, so the driver drops them.
const out = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
console.log = () => {};
console.info = () => {};

// One copy of @utcp/sdk: the plugin registers itself in the SDK instance code-mode uses.
const requireUtcp = createRequire(join(installDir, 'package.json'));
const { CodeModeUtcpClient } = requireUtcp('@utcp/code-mode');
const { addFunctionToUtcpDirectCall } = requireUtcp('@utcp/direct-call');

// The same three tools as bench/bench-runtime.ts, as UTCP direct-call functions (UTCP
// spreads the argument object's values as parameters).
const LOOKUP_RECORDS = Array.from({ length: 16 }, (_, i) => ({
  id: i,
  name: `item-${i}`,
  score: (i * 37) % 100,
  tags: i % 2 === 0 ? ['even', 'bench'] : ['odd', 'bench'],
}));
const tool = (name, description, properties, required) => ({
  name,
  description,
  inputs: { type: 'object', properties, required },
  outputs: {},
  tags: [],
  tool_call_template: { call_template_type: 'direct-call', callable_name: `bench_${name}` },
});
addFunctionToUtcpDirectCall('bench_manual', async () => ({
  utcp_version: '1.0.0',
  manual_version: '1.0.0',
  tools: [
    tool('noop', 'Returns its number.', { n: { type: 'integer' } }, ['n']),
    tool('lookup', 'One small record by id (0-15).', { id: { type: 'integer' } }, ['id']),
    tool('wait', 'Waits `ms` milliseconds.', { ms: { type: 'integer' }, safe: { type: 'boolean' } }, ['ms', 'safe']),
  ],
}));
addFunctionToUtcpDirectCall('bench_noop', (n) => n);
addFunctionToUtcpDirectCall('bench_lookup', (id) => LOOKUP_RECORDS[id] ?? null);
addFunctionToUtcpDirectCall('bench_wait', (ms) => sleep(ms).then(() => ms));

const client = await CodeModeUtcpClient.create(installDir);
// Manual "tools": the programs' `tools.noop(...)` is UTCP's `manual.tool(...)` access.
await client.registerManual({ name: 'tools', call_template_type: 'direct-call', callable_name: 'bench_manual' });

// UTCP runs JavaScript (callToolChain compiles the code as a script, no TypeScript step):
// the typed programs get their types erased once here, outside the timing. Erasure keeps
// every position, so the body is cut back out of the function wrapped around it.
function toJavaScript(body) {
  const head = 'async function program() {\n';
  const tail = '\n}';
  const js = stripTypeScriptTypes(head + body + tail);
  if (js.length !== head.length + body.length + tail.length) throw new Error('type erasure moved code');
  return js.slice(head.length, js.length - tail.length);
}

const PROGRAMS = {
  trivial: { code: toJavaScript(TRIVIAL_PROGRAM), check: (r) => r === 1 },
  kb: { code: toJavaScript(KB_PROGRAM), check: (r) => r?.count === 3 && r?.total === 77 },
  nested: { code: toJavaScript(NESTED_CALLS_PROGRAM), check: (r) => r === sequentialCallsSum(NESTED_CALLS) },
  nested2k: {
    code: toJavaScript(DOUBLED_NESTED_CALLS_PROGRAM),
    check: (r) => r === sequentialCallsSum(DOUBLED_NESTED_CALLS),
  },
  waitAll: { code: toJavaScript(waitAllProgram(100, 10, true)), check: (r) => r === 100 },
};

/** Milliseconds one callToolChain of the program takes; throws unless it returned the expected value. */
async function timeRun(name) {
  const program = PROGRAMS[name];
  if (program === undefined) throw new Error(`unknown program "${name}" (known: ${Object.keys(PROGRAMS).join(', ')})`);
  const start = performance.now();
  const { result, logs } = await client.callToolChain(program.code);
  const ms = performance.now() - start;
  if (!program.check(result)) {
    throw new Error(`UTCP run of "${name}" returned ${JSON.stringify(result)}; logs: ${logs.slice(-3).join(' | ')}`);
  }
  return ms;
}

const versionOf = (name) =>
  JSON.parse(readFileSync(join(installDir, 'node_modules', name, 'package.json'), 'utf8')).version;
const versions = {
  node: process.version,
  codeMode: versionOf('@utcp/code-mode'),
  sdk: versionOf('@utcp/sdk'),
  directCall: versionOf('@utcp/direct-call'),
  isolatedVm: versionOf('isolated-vm'),
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length / 2) - 1];

if (process.argv.includes('--serve')) {
  out({ ready: true, versions });
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === '') continue;
    try {
      out({ ms: await timeRun(JSON.parse(line).program) });
    } catch (error) {
      out({ error: error instanceof Error ? error.message : String(error) });
    }
  }
} else {
  const iterations = 25;
  for (const name of ['trivial', 'kb', 'trivial', 'nested']) await timeRun(name); // warm-up
  const trivial = [];
  const kb = [];
  const nested = [];
  const waitAll = [];
  for (let i = 0; i < iterations; i += 1) {
    trivial.push(await timeRun('trivial'));
    kb.push(await timeRun('kb'));
  }
  for (let i = 0; i < 5; i += 1) nested.push(await timeRun('nested'));
  for (let i = 0; i < 3; i += 1) waitAll.push(await timeRun('waitAll'));
  const trivialMs = median(trivial);
  out({
    versions,
    trivialMs,
    kbMs: median(kb),
    nestedCallUs: median(nested.map((ms) => ((ms - trivialMs) * 1000) / NESTED_CALLS)),
    waitAll100x10Ms: median(waitAll),
  });
}
