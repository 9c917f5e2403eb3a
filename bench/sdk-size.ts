// SDK size against the JSON schemas it replaces, and the time of generateSdk and
// checkProgram, for the 50-tool fixture. Figures only; the size bound itself is a
// test (test/sdk-gen/generate-sdk.test.ts).
// Run: node --no-node-snapshot bench/sdk-size.ts
import { pathToFileURL } from 'node:url';
import { checkProgram, generateSdk } from '../sdk-gen/index.ts';
import { createToolRuntime, defineTool, type Tool } from '../src/index.ts';
import { summarize } from './stats.ts';
import { fiftyTools } from '../test/sdk-gen/fixtures/fifty-tools.ts';

export interface SdkSizeReport {
  readonly tools: number;
  readonly sdkChars: number;
  /** Sum over tools of JSON.stringify({ name, description, parameters }).length. */
  readonly schemaChars: number;
  /** The same with outputSchema included, which the SDK also types. */
  readonly schemaWithOutputChars: number;
  readonly generateMs: number;
  readonly firstCheckMs: number;
  readonly warmCheckMs: number;
  /** What rt.schemas() sends in ptc mode (JSON characters, SDK embedded) for synthetic tool sets. */
  readonly scaling: readonly SdkScalingPoint[];
}

export interface SdkScalingPoint {
  readonly tools: number;
  /** Every tool loaded: its full types in the SDK. */
  readonly loadedChars: number;
  /** Every tool `deferLoading: true`: one line each, loaded on demand with tools.$describe. */
  readonly deferredChars: number;
}

const DOMAINS = [
  'crm',
  'billing',
  'inventory',
  'shipping',
  'support',
  'analytics',
  'identity',
  'calendar',
  'storage',
  'messaging',
];
const VERBS = ['search', 'get', 'create', 'update', 'archive', 'export', 'import', 'merge', 'tag', 'count'];

/** n realistic tools: ~35-character names, ~250-character descriptions, three typed parameters, an object result. */
function syntheticTools(count: number, deferLoading: boolean): Tool[] {
  return Array.from({ length: count }, (_, n) => {
    const domain = DOMAINS[n % DOMAINS.length]!;
    const verb = VERBS[Math.floor(n / DOMAINS.length) % VERBS.length]!;
    const id = String(n).padStart(4, '0');
    return defineTool({
      name: `acme_${domain}_${verb}_records_${id}`,
      description: `${verb} ${domain} records of the Acme workspace (batch ${id}). Results are paginated with a cursor; filters combine with AND; every call is audited and rate limited to 100 calls per minute per user.`,
      parameters: {
        query: { type: 'string', required: true, minLength: 1, maxLength: 200, description: 'Free-text filter.' },
        limit: { type: 'integer', minimum: 1, maximum: 50, description: 'Page size.' },
        cursor: { type: 'string', description: 'Opaque cursor of the previous page.' },
      },
      output: {
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: { items: { type: 'array', items: { type: 'string' }, required: true }, next: { type: 'string' } },
        },
        render: () => [],
      },
      deferLoading,
      execute: () => ({ items: [] }),
    });
  });
}

async function sentChars(tools: readonly Tool[]): Promise<number> {
  const rt = createToolRuntime({ mode: 'ptc' });
  for (const tool of tools) rt.register(tool);
  const chars = JSON.stringify(rt.schemas()).length;
  await rt.close();
  return chars;
}

/** ptc-mode request size for 10, 100 and 1,000 tools, loaded and deferred. */
export async function measureSdkScaling(): Promise<SdkScalingPoint[]> {
  const points: SdkScalingPoint[] = [];
  for (const count of [10, 100, 1_000]) {
    points.push({
      tools: count,
      loadedChars: await sentChars(syntheticTools(count, false)),
      deferredChars: await sentChars(syntheticTools(count, true)),
    });
  }
  return points;
}

const PROGRAM = `const [orders, customer] = await Promise.all([
  tools.search_orders({ customerId: "cus_1", status: "paid", limit: 10 }),
  tools.get_customer({ customerId: "cus_1" }),
]);
console.log(customer.tier);
return orders.orders.map((order) => order.total.amount);`;

const median = (values: readonly number[]): number => summarize(values).p50;

export async function measureSdkSize(): Promise<SdkSizeReport> {
  const schemaChars = fiftyTools.reduce(
    (sum, { name, description, parameters }) => sum + JSON.stringify({ name, description, parameters }).length,
    0,
  );
  const schemaWithOutputChars = fiftyTools.reduce(
    (sum, { name, description, parameters, outputSchema }) =>
      sum + JSON.stringify({ name, description, parameters, outputSchema }).length,
    0,
  );
  const generateTimes: number[] = [];
  let sdk = '';
  for (let i = 0; i < 20; i++) {
    const start = performance.now();
    sdk = generateSdk(fiftyTools);
    generateTimes.push(performance.now() - start);
  }
  let start = performance.now();
  checkProgram(sdk, PROGRAM);
  const firstCheckMs = performance.now() - start;
  const checkTimes: number[] = [];
  for (let i = 0; i < 20; i++) {
    start = performance.now();
    checkProgram(sdk, `${PROGRAM}\n// run ${i}`);
    checkTimes.push(performance.now() - start);
  }
  return {
    tools: fiftyTools.length,
    sdkChars: sdk.length,
    schemaChars,
    schemaWithOutputChars,
    generateMs: median(generateTimes),
    firstCheckMs,
    warmCheckMs: median(checkTimes),
    scaling: await measureSdkScaling(),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const report = await measureSdkSize();
  const ratio = (report.sdkChars / report.schemaChars).toFixed(2);
  console.log(
    `sdk-size: ${report.tools} tools, SDK ${report.sdkChars} chars vs JSON schemas ${report.schemaChars} chars (${ratio}x; ${report.schemaWithOutputChars} with output schemas)`,
  );
  for (const point of report.scaling) {
    console.log(
      `sdk-size: ${point.tools} tools, ptc request ${point.loadedChars} chars loaded, ${point.deferredChars} chars deferred`,
    );
  }
  console.log(
    `sdk-size: generateSdk ${report.generateMs.toFixed(2)} ms (median), checkProgram first ${report.firstCheckMs.toFixed(0)} ms, warm ${report.warmCheckMs.toFixed(1)} ms (median)`,
  );
}
