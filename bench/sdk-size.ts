// SDK size against the JSON schemas it replaces, and the time of generateSdk and
// checkProgram, for the 50-tool fixture. Figures only; the size bound itself is a
// test (test/sdk-gen/generate-sdk.test.ts).
// Run: node --no-node-snapshot bench/sdk-size.ts
import { pathToFileURL } from 'node:url';
import { checkProgram, generateSdk } from '../sdk-gen/index.ts';
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
}

const PROGRAM = `const [orders, customer] = await Promise.all([
  tools.search_orders({ customerId: "cus_1", status: "paid", limit: 10 }),
  tools.get_customer({ customerId: "cus_1" }),
]);
console.log(customer.tier);
return orders.orders.map((order) => order.total.amount);`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export function measureSdkSize(): SdkSizeReport {
  const schemaChars = fiftyTools.reduce(
    (sum, { name, description, parameters }) => sum + JSON.stringify({ name, description, parameters }).length,
    0,
  );
  const schemaWithOutputChars = fiftyTools.reduce(
    (sum, { name, description, parameters, outputSchema }) => sum + JSON.stringify({ name, description, parameters, outputSchema }).length,
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
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const report = measureSdkSize();
  const ratio = (report.sdkChars / report.schemaChars).toFixed(2);
  console.log(`sdk-size: ${report.tools} tools, SDK ${report.sdkChars} chars vs JSON schemas ${report.schemaChars} chars (${ratio}x; ${report.schemaWithOutputChars} with output schemas)`);
  console.log(`sdk-size: generateSdk ${report.generateMs.toFixed(2)} ms (median), checkProgram first ${report.firstCheckMs.toFixed(0)} ms, warm ${report.warmCheckMs.toFixed(1)} ms (median)`);
}
