// `ptc sdk --stats`: token counts (o200k_base) of the SDK against the native tool
// definitions. The demo SDK's count is pinned: a change to the SDK's text (its preamble,
// its layout, the demo tools) must change this number on purpose, and with it the
// figures published in the docs.
import { describe, expect, it } from '@jest/globals';
import { o200kCounter } from '../../src/cli/count-tokens.ts';
import { runCli } from '../support/run-cli.ts';
import type { SdkStats } from '../../src/cli/sdk-stats.ts';
import { sdkStats } from '../../src/cli/sdk-stats.ts';
import { shopTools } from '../../src/demo/shop-tools.ts';
import { createToolRuntime, defineJsonSchemaTool, type Tool } from '../../src/index.ts';
import { RetailStore } from '../../bench/tau2/retail-store.ts';
import { retailTools } from '../../bench/tau2/tools.ts';
import { fiftyTools } from '../sdk-gen/fixtures/fifty-tools.ts';

async function statsOf(tools: readonly Tool[]): Promise<SdkStats> {
  const rt = createToolRuntime({ mode: 'both' });
  try {
    for (const tool of tools) rt.register(tool);
    return sdkStats(rt, await o200kCounter());
  } finally {
    await rt.close();
  }
}

const cli = runCli;

describe('ptc sdk --stats', () => {
  it('pins the token count of the demo SDK, and the figures add up', async () => {
    const run = await cli('sdk', '--stats', '--json');
    expect(run).toMatchObject({ code: 0, err: '' });
    const stats = JSON.parse(run.out) as SdkStats;
    // The published figures (docs, bench/README.md) come from these numbers: update them together.
    expect({ sdk: stats.sdk, preamble: stats.preamble, native: stats.native, runCode: stats.runCode }).toEqual({
      sdk: 492,
      preamble: 162,
      native: 363,
      runCode: 642,
    });
    expect(stats.tools.map((tool) => tool.name)).toEqual([
      'flag_order',
      'get_product_sales',
      'get_shipment',
      'list_customers',
      'list_orders',
      'search_products',
    ]);
    expect(stats.sharedTypes.names).toEqual(['Order']);
    const count = await o200kCounter();
    const sdk = (await cli('sdk')).out;
    expect(count(sdk.slice(0, -1))).toBe(stats.sdk);
    expect(stats.native).toBe(stats.tools.reduce((sum, tool) => sum + tool.native, 0));
    // Output types: each typed result, and the shared Order they name.
    expect(stats.outputTypes).toBeGreaterThan(stats.sharedTypes.tokens);
    expect(stats.nativeWithOutput).toBeGreaterThan(stats.native);
  });

  it('keeps the preamble within 200 tokens, and ten tools without output schemas within 0.85x their native definitions', async () => {
    const rt = createToolRuntime({ mode: 'both' });
    const ten = fiftyTools.filter((tool) => tool.outputSchema === undefined && tool.deferLoading !== true).slice(0, 10);
    for (const tool of ten) {
      rt.register(
        defineJsonSchemaTool({
          name: tool.name,
          description: tool.description,
          parameters: tool.parameters as never,
          output: { render: () => [] },
          execute: () => null,
        }),
      );
    }
    try {
      const { sdkStats } = await import('../../src/cli/sdk-stats.ts');
      const stats = sdkStats(rt, await o200kCounter());
      expect(stats.tools).toHaveLength(10);
      expect(stats.preamble).toBeLessThanOrEqual(200);
      expect(stats.outputTypes).toBe(0);
      expect(stats.runCodeDescription / stats.native).toBeLessThanOrEqual(0.85);
    } finally {
      await rt.close();
    }
  });

  it('the τ² retail SDK, output types and preamble included, is smaller than the native definitions alone', async () => {
    const store = new RetailStore({ users: {}, orders: {}, products: {} } as never);
    const stats = await statsOf(retailTools({ store }, new Map()));
    expect(stats.tools).toHaveLength(16);
    expect(stats.outputTypes).toBeGreaterThan(0);
    expect(stats.sdk).toBeLessThanOrEqual(stats.native);
    expect(stats.runCodeDescription).toBeLessThanOrEqual(stats.native);
  });

  it('the demo shop: run_code within 0.9x of the native definitions plus output schemas; the SDK without its output types within the native definitions', async () => {
    const stats = await statsOf(shopTools());
    expect(stats.outputTypes).toBeGreaterThan(0);
    expect(stats.runCodeDescription / stats.nativeWithOutput).toBeLessThanOrEqual(0.9);
    // The whole SDK is larger than the bare native definitions here: six tools carry a
    // fixed preamble, and their output types say what native definitions do not.
    expect(stats.sdk - stats.outputTypes).toBeLessThanOrEqual(stats.native);
  });

  it('prints a table that says what each column measures, in the format asked for', async () => {
    const run = await cli('sdk', '--stats', '--format', 'openai');
    expect(run.code).toBe(0);
    expect(run.out).toContain('Tokens (o200k_base) of the SDK against the native definitions (openai format)');
    expect(run.out).toMatch(/^flag_order +\d+ +\d+ +\d+ +\d+$/m);
    expect(run.out).toMatch(/^run_code description +\d+ +\d\.\d\d× +\d\.\d\d×$/m);
  });

  it('refuses --json without --stats', async () => {
    const run = await cli('sdk', '--json');
    expect(run).toMatchObject({ code: 2, out: '' });
    expect(run.err).toMatch(/^ptc: --json goes with --stats\n$/);
  });
});
