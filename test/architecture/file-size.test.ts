// No source file of src/, sandbox/ or sdk-gen/ over 700 lines: past that a file holds
// more than one concept and nobody reads it whole. Generated bundles are not sources.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, tsFiles } from './import-graph.ts';

const MAX_LINES = 700;
/** Written by `npm run bundle`, checked against their sources elsewhere. */
const GENERATED = new Set([join('sandbox', 'guest-prelude-bundle.ts')]);

const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Every file over the limit, as `path: N lines`. */
function oversized(sources: readonly { path: string; text: string }[]): string[] {
  return sources
    .filter(({ path, text }) => !GENERATED.has(path) && lineCount(text) > MAX_LINES)
    .map(({ path, text }) => `${path}: ${lineCount(text)} lines (at most ${MAX_LINES}; split it along its concepts)`);
}

const sources = ['src', 'sandbox', 'sdk-gen']
  .flatMap(tsFiles)
  .map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));

describe('file size', () => {
  it(`no source file of src/, sandbox/ or sdk-gen/ is over ${MAX_LINES} lines`, () => {
    expect(oversized(sources)).toStrictEqual([]);
  });

  it('the rule counts lines as an editor does and leaves generated bundles out', () => {
    const lines = (n: number): string => 'x\n'.repeat(n);
    expect(oversized([{ path: join('src', 'a.ts'), text: lines(MAX_LINES) }])).toStrictEqual([]);
    expect(oversized([{ path: join('src', 'a.ts'), text: lines(MAX_LINES + 1) }])).toHaveLength(1);
    expect(oversized([{ path: join('src', 'a.ts'), text: `${lines(MAX_LINES)}x` }])).toHaveLength(1);
    expect(oversized([{ path: join('sandbox', 'guest-prelude-bundle.ts'), text: lines(5000) }])).toStrictEqual([]);
    expect(sources.some((s) => GENERATED.has(s.path))).toBe(true);
  });
});
