// `ptc demo`'s table: round trips, tokens, tool time alone, and a wall time that counts
// the stated model latency once per round trip.
import { describe, expect, it } from '@jest/globals';
import { DEFAULT_MODEL_LATENCY_MS, runDemo } from '../../src/cli/run-demo.ts';

async function table(modelLatencyMs?: number): Promise<{ text: string; row: (name: string) => [number, number] }> {
  let text = '';
  const ok = await runDemo((t) => (text += t), modelLatencyMs === undefined ? {} : { modelLatencyMs });
  expect(ok).toBe(true);
  const row = (name: string): [number, number] => {
    const line = text.split('\n').find((l) => l.startsWith(name));
    if (line === undefined) throw new Error(`no row ${name} in\n${text}`);
    const [, a, b] = line.split('|').map((cell) => Number(cell.trim().replace(/^~/, '')));
    return [a!, b!];
  };
  return { text, row };
}

describe('ptc demo', () => {
  it('reports round trips, tokens, tool time alone and the wall time at 1 s per round trip by default', async () => {
    const { text, row } = await table();
    expect(DEFAULT_MODEL_LATENCY_MS).toBe(1000);
    const [nativeTrips, ptcTrips] = row('model round trips');
    expect(ptcTrips).toBeLessThan(nativeTrips);
    const [nativeChars, ptcChars] = row('tool output in context (chars)');
    const [nativeTokens, ptcTokens] = row('tool output in context (tokens)');
    // Counted with o200k_base: fewer tokens than characters, and run_code's far fewer.
    expect(nativeTokens).toBeGreaterThan(0);
    expect(nativeTokens).toBeLessThan(nativeChars);
    expect(ptcTokens).toBeLessThan(ptcChars);
    expect(ptcTokens * 10).toBeLessThan(nativeTokens);
    const [nativeTool, ptcTool] = row('tool time alone (ms)');
    const [nativeWall, ptcWall] = row('wall time at 1000 ms per round trip (ms)');
    // Rounded separately: within 1 ms of tool time + round trips × latency.
    expect(Math.abs(nativeWall - (nativeTool + nativeTrips * 1000))).toBeLessThanOrEqual(1);
    expect(Math.abs(ptcWall - (ptcTool + ptcTrips * 1000))).toBeLessThanOrEqual(1);
    // Each row says what it measures; the sandbox's start-up is outside the tool time.
    expect(text).toContain('What the rows measure:');
    expect(text).toMatch(/the sandbox was\n {2}started before this clock \(\d+ ms, once per runtime\)/);
    expect(text).toContain('tool time plus 1000 ms per round trip');
  }, 60_000);

  it('--model-latency-ms 0 leaves the tool time alone', async () => {
    const { row } = await table(0);
    const tool = row('tool time alone (ms)');
    expect(row('wall time at 0 ms per round trip (ms)')).toEqual(tool);
  }, 60_000);
});
