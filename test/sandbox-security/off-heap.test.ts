// Memory outside the V8 heap that a program could make the sandbox (or, in-process, the
// host) allocate past memoryMb: ICU memory behind Intl, Wasm and shared memory. Each is
// either removed from the guest or charged to the run's budget; in both isolation modes
// the run fails cleanly, the process that hosts the isolate stays small and the next run works.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createSandbox } from '../../sandbox/index.ts';
import {
  expectFailure,
  expectHealthy,
  expectNoHostLeak,
  expectResult,
  memorySnapshot,
  peakGrowthMb,
  recordingHost,
} from './helpers.ts';

const processBox = createSandbox({ limits: { wallTimeMs: 30_000, cpuTimeMs: 20_000 } });
const inProcessBox = createSandbox({ isolation: 'in-process', limits: { wallTimeMs: 30_000, cpuTimeMs: 20_000 } });
afterAll(() => Promise.all([processBox.close(), inProcessBox.close()]));

/** Well above a 64 MiB heap plus the isolate's own overhead; the attacks reached 630 MiB to 1.1 GiB. */
const GROWTH_LIMIT_MB = 300;

const bombs: readonly [string, string][] = [
  [
    'Intl.Segmenter#segment() of a 32 MiB string, 16 times',
    'const s = "ab ".repeat(11_184_810); const keep = []; for (let i = 0; i < 16; i++) keep.push(new Intl.Segmenter("en", { granularity: "word" }).segment(s)); return keep.length;',
  ],
  [
    'Intl.Locale#maximize() 1,500,000 times',
    'const keep = []; const l = new Intl.Locale("en"); for (let i = 0; i < 1_500_000; i++) keep.push(l.maximize()); return keep.length;',
  ],
  [
    'Intl.Segmenter reached through the prototype of a formatter',
    'const S = Object.getPrototypeOf(Intl).Segmenter ?? Intl["Seg" + "menter"]; return new S("en").segment("a b").containing(0);',
  ],
  [
    '200,000 Intl.DateTimeFormat objects kept alive',
    'const keep = []; for (let i = 0; i < 200_000; i++) keep.push(new Intl.DateTimeFormat("en", { timeZone: "UTC" })); return keep.length;',
  ],
  [
    '400,000 Intl.NumberFormat objects made by calling without new',
    'const keep = []; for (let i = 0; i < 400_000; i++) keep.push(Intl.NumberFormat("en")); return keep.length;',
  ],
  [
    'a WebAssembly memory of 1 GiB',
    'const m = new WebAssembly.Memory({ initial: 16384 }); new Uint8Array(m.buffer).fill(1); return 1;',
  ],
  [
    'a growable SharedArrayBuffer of 1 GiB',
    'const b = new SharedArrayBuffer(8, { maxByteLength: 2 ** 30 }); b.grow(2 ** 30); return 1;',
  ],
  [
    '1 GiB of plain ArrayBuffers kept alive',
    'const keep = []; for (let i = 0; i < 1024; i++) { const b = new ArrayBuffer(2 ** 20); new Uint8Array(b).fill(1); keep.push(b); } return keep.length;',
  ],
  [
    '1 GiB of typed arrays kept alive',
    'const keep = []; for (let i = 0; i < 1024; i++) keep.push(new Float64Array(2 ** 17).fill(1.5)); return keep.length;',
  ],
];

describe.each([
  ['process', processBox],
  ['in-process', inProcessBox],
] as const)('off-heap memory (%s)', (_mode, sandbox) => {
  it.each(bombs)(
    '%s fails without growing memory past the budget',
    async (_name, code) => {
      const before = memorySnapshot();
      const outcome = await sandbox.run({
        code,
        toolNames: [],
        hostCall: recordingHost([]).hostCall,
        limits: { memoryMb: 64 },
      });
      const growth = peakGrowthMb(before);
      expectFailure(outcome, ['memory', 'exception']);
      expectNoHostLeak(outcome);
      expect(growth.hostMb).toBeLessThan(GROWTH_LIMIT_MB);
      expect(growth.childMb).toBeLessThan(GROWTH_LIMIT_MB);
      await expectHealthy(sandbox);
    },
    60_000,
  );

  it('keeps the Intl formatters a program needs, charged once each, and removes Segmenter and Locale', async () => {
    const outcome = await sandbox.run({
      code: `const money = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
const date = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", year: "numeric", month: "short", day: "numeric" });
const sorted = ["b", "a", "C"].sort(new Intl.Collator("en").compare);
return [money.format(1234.5), date.format(0), sorted, new Intl.PluralRules("en").select(2), new Intl.ListFormat("en").format(["x", "y"]),
  typeof Intl.Segmenter, typeof Intl.Locale, (1234.5).toLocaleString("en-US"), "a".localeCompare("b")];`,
      toolNames: [],
      hostCall: recordingHost([]).hostCall,
    });
    expectResult(outcome, [
      '$1,234.50',
      'Jan 1, 1970',
      ['a', 'b', 'C'],
      'other',
      'x and y',
      'undefined',
      'undefined',
      '1,234.5',
      -1,
    ]);
  });
});
