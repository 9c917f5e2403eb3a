// No import cycles between the package's own files (src/, sandbox/, sdk-gen/), type-only
// imports included: a cycle of types still ties the files into one unit that can only be
// read, moved and tested together. A failure names one path around each knot; the usual
// mend is to move the shared type into a small file of its own that both sides import.
import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { type ImportEdge, importCycles, importsOf, tsFiles } from './import-graph.ts';

const files = ['src', 'sandbox', 'sdk-gen'].flatMap(tsFiles);
const edges = files.flatMap((file) => importsOf(file));

/** Cycles among made-up files, each given as its text. */
function cyclesOf(sources: Record<string, string>): string[] {
  const names = Object.keys(sources).sort();
  const made: ImportEdge[] = names.flatMap((name) => importsOf(name, sources[name]));
  return importCycles(names, made);
}

describe('import cycles', () => {
  it('the graph holds the type-only and re-export edges too', () => {
    const has = (from: string, specifier: string): boolean =>
      edges.some((e) => e.from === from && e.specifier === specifier);
    expect(has(join('src', 'definition', 'checked-body.ts'), '../pipeline/tool-execution.ts')).toBe(true); // import type
    expect(has(join('src', 'definition', 'define-tool.ts'), './tool.ts')).toBe(true); // export type … from
    expect(files.length).toBeGreaterThan(200);
  });

  it('there are none between files of src/, sandbox/ and sdk-gen/', () => {
    expect(importCycles(files, edges)).toStrictEqual([]);
  });

  it('a cycle is found whatever closes it: a value import, a type-only import, a re-export, a dynamic import', () => {
    const closers = [
      "import { a } from './a.ts';",
      "import type { A } from './a.ts';",
      "import { type A } from './a.ts';",
      "export type { A } from './a.ts';",
      "export * from './a.ts';",
      "const a = await import('./a.ts');",
    ];
    for (const closer of closers) {
      const found = cyclesOf({
        'src/x/a.ts': "import type { B } from './b.ts';",
        'src/x/b.ts': "import { c } from './c.ts';",
        'src/x/c.ts': closer,
      });
      expect([closer, found]).toStrictEqual([closer, ['src/x/a.ts → src/x/b.ts → src/x/c.ts → src/x/a.ts']]);
    }
  });

  it('finds a file that imports itself, two knots apart, and a path across folders; not a chain', () => {
    expect(
      cyclesOf({
        'src/a/self.ts': "export { x } from './self.ts';",
        'src/b/one.ts': "import type { T } from '../c/two.ts';",
        'src/c/two.ts': "import { one } from '../b/one.ts';",
        'src/d/head.ts': "import { tail } from './tail.ts';",
        'src/d/tail.ts': "import { x } from '../a/self.ts';",
      }),
    ).toStrictEqual(['src/a/self.ts → src/a/self.ts', 'src/b/one.ts → src/c/two.ts → src/b/one.ts']);
  });
});
