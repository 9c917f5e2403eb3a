// `ptc sdk --stats`: token counts (o200k_base) of the SDK against the native tool
// definitions. The demo SDK's count is pinned: a change to the SDK's text (its preamble,
// its layout, the demo tools) must change this number on purpose, and with it the
// figures published in the docs.
import { describe, expect, it } from '@jest/globals';
import { o200kCounter } from '../../src/cli/count-tokens.ts';
import { main } from '../../src/cli/main.ts';
import type { SdkStats } from '../../src/cli/sdk-stats.ts';
import { createToolRuntime, defineJsonSchemaTool } from '../../src/index.ts';
import { fiftyTools } from '../sdk-gen/fixtures/fifty-tools.ts';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join(''), err: err.join('') };
}

describe('ptc sdk --stats', () => {
  it('pins the token count of the demo SDK, and the figures add up', async () => {
    const run = await cli('sdk', '--stats', '--json');
    expect(run).toMatchObject({ code: 0, err: '' });
    const stats = JSON.parse(run.out) as SdkStats;
    // The published figures (docs, bench/README.md) come from these numbers: update them together.
    expect({ sdk: stats.sdk, preamble: stats.preamble, native: stats.native, runCode: stats.runCode }).toEqual({
      sdk: 539,
      preamble: 199,
      native: 363,
      runCode: 727,
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
