// The SDK against the native definitions it replaces, per tool set, in o200k_base tokens
// (the figures of `ptc sdk --stats`): BFCL's eight classes, τ²-bench retail, the demo shop,
// ten tools without output schemas, and the five published MCP servers the tests import.
// Run: node --no-node-snapshot --conditions=ptc-source bench/sdk-tokens.ts [--bfcl <dir>] [--json]
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { o200kCounter } from '../src/cli/count-tokens.ts';
import { type SdkStats, sdkStats } from '../src/cli/sdk-stats.ts';
import { shopTools } from '../src/demo/shop-tools.ts';
import { createToolRuntime, defineJsonSchemaTool, type Tool } from '../src/index.ts';
import { importMcpTools } from '../src/mcp/index.ts';
import { fiftyTools } from '../test/sdk-gen/fixtures/fifty-tools.ts';
import { loadDataset } from './bfcl/data.ts';
import { buildTools } from './bfcl/tools.ts';
import { RetailStore } from './tau2/retail-store.ts';
import { retailTools } from './tau2/tools.ts';

export interface ToolSetTokens {
  readonly set: string;
  readonly tools: number;
  readonly stats: SdkStats;
}

const { values } = parseArgs({
  options: {
    bfcl: { type: 'string', default: '../shared/bench-data/bfcl' },
    json: { type: 'boolean', default: false },
  },
});

const count = await o200kCounter();

async function measure(
  set: string,
  register: (rt: ReturnType<typeof createToolRuntime>) => Promise<() => Promise<void>>,
): Promise<ToolSetTokens> {
  const rt = createToolRuntime({ mode: 'both' });
  const close = await register(rt);
  try {
    const stats = sdkStats(rt, count);
    return { set, tools: stats.tools.length, stats };
  } finally {
    await close();
    await rt.close();
  }
}

const registering =
  (tools: readonly Tool[]) =>
  async (rt: ReturnType<typeof createToolRuntime>): Promise<() => Promise<void>> => {
    for (const tool of tools) rt.register(tool);
    return async () => {};
  };

/** `node <bin>` of an installed MCP server package, quoted for the command-line splitter. */
function serverCommand(name: string, ...args: string[]): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve(`${name}/package.json`);
  const pkg = require(manifest) as { bin: Record<string, string> };
  const entry = join(dirname(manifest), Object.values(pkg.bin)[0] ?? '');
  return [process.execPath, entry, ...args].map((word) => `'${word}'`).join(' ');
}

const mcp =
  (command: string) =>
  async (rt: ReturnType<typeof createToolRuntime>): Promise<() => Promise<void>> => {
    const imported = await importMcpTools(rt, { servers: [command] });
    return () => imported.close();
  };

const rows: ToolSetTokens[] = [];
const dataset = loadDataset(values.bfcl, { categories: ['base'] });
for (const [cls, docs] of dataset.docs) {
  const tools = [...buildTools(new Map([[cls, docs]]), { envs: new Map(), results: [] }).values()];
  rows.push(await measure(`BFCL ${cls}`, registering(tools)));
}
rows.push(
  await measure(
    'τ² retail',
    registering(retailTools({ store: new RetailStore({ users: {}, orders: {}, products: {} } as never) }, new Map())),
  ),
);
rows.push(await measure('demo shop', registering(shopTools())));
const ten = fiftyTools
  .filter((tool) => tool.outputSchema === undefined && tool.deferLoading !== true)
  .slice(0, 10)
  .map((tool) =>
    defineJsonSchemaTool({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters as never,
      output: { render: () => [] },
      execute: () => null,
    }),
  );
rows.push(await measure('ten tools, no output schemas (sdk-gen fixture)', registering(ten)));
const scratch = mkdtempSync(join(tmpdir(), 'ptc-sdk-tokens-'));
try {
  rows.push(await measure('MCP server-everything', mcp(serverCommand('@modelcontextprotocol/server-everything'))));
  rows.push(
    await measure('MCP server-filesystem', mcp(serverCommand('@modelcontextprotocol/server-filesystem', scratch))),
  );
  rows.push(await measure('MCP server-memory', mcp(serverCommand('@modelcontextprotocol/server-memory'))));
  rows.push(
    await measure(
      'MCP server-sequential-thinking',
      mcp(serverCommand('@modelcontextprotocol/server-sequential-thinking')),
    ),
  );
  // Its tool list is fixed and it connects only when a query runs: listing needs no database.
  rows.push(
    await measure(
      'MCP server-postgres',
      mcp(serverCommand('@modelcontextprotocol/server-postgres', 'postgres://127.0.0.1:1/unused')),
    ),
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const n = (x: number): string => x.toLocaleString('en-US');
const ratio = (a: number, b: number): string => (b === 0 ? '–' : `${(a / b).toFixed(2)}×`);
if (values.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
else {
  const lines = [
    '| tool set | tools | native | native + output schemas | SDK (of which output types) | SDK ÷ native | run_code description ÷ native | ÷ native + output schemas |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(({ set, tools, stats: s }) => {
      const typed = s.nativeWithOutput > s.native;
      return `| ${set} | ${tools} | ${n(s.native)} | ${typed ? n(s.nativeWithOutput) : '–'} | ${n(s.sdk)}${typed ? ` (${n(s.outputTypes)})` : ''} | ${ratio(s.sdk, s.native)} | ${ratio(s.runCodeDescription, s.native)} | ${typed ? ratio(s.runCodeDescription, s.nativeWithOutput) : '–'} |`;
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
