// The package's layers, checked on the real import graph: every import specifier of
// every .ts file (static, dynamic, type-only, re-exports), read by TypeScript's own
// pre-processor rather than guessed with a pattern.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { type ImportEdge, importsOf, root, tsFiles } from './import-graph.ts';

const LAYERS = ['src', 'sdk-gen', 'sandbox', 'examples', 'bench'] as const;
type Layer = (typeof LAYERS)[number];

const layerOf = (path: string): string => path.split(sep)[0]!;
const exportKeys = Object.keys(
  (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: object }).exports,
);
const publicSpecifiers = new Set(
  exportKeys.map((key) => (key === '.' ? 'ptc-runtime' : `ptc-runtime/${key.slice(2)}`)),
);

/** Relative imports a layer may not make: the layers it must not reach into. */
const FORBIDDEN: Record<Layer, readonly string[]> = {
  src: ['examples', 'bench', 'test'],
  'sdk-gen': ['src', 'sandbox', 'examples', 'bench', 'test'],
  sandbox: ['src', 'sdk-gen', 'examples', 'bench', 'test'],
  // Examples are written as a user would: the package by its name, nothing by path.
  examples: ['src', 'sdk-gen', 'sandbox', 'bench', 'test'],
  bench: [],
};

/** Every edge that breaks a rule, as `from → specifier (why)`. */
function boundaryViolations(edges: readonly ImportEdge[]): string[] {
  const violations: string[] = [];
  for (const edge of edges) {
    const layer = layerOf(edge.from) as Layer;
    if (edge.target !== undefined) {
      const targetLayer = layerOf(edge.target);
      if (targetLayer === '..' || FORBIDDEN[layer].includes(targetLayer)) {
        violations.push(`${edge.from} → ${edge.specifier} (${layer}/ must not import ${targetLayer}/)`);
      }
    } else if (edge.specifier === 'ptc-runtime' || edge.specifier.startsWith('ptc-runtime/')) {
      if (layer !== 'examples' && layer !== 'bench')
        violations.push(`${edge.from} → ${edge.specifier} (only examples/ and bench/ use the package name)`);
      else if (!publicSpecifiers.has(edge.specifier))
        violations.push(`${edge.from} → ${edge.specifier} (not an entry of package.json "exports")`);
    }
  }
  return violations;
}

const edges = LAYERS.flatMap((layer) => tsFiles(layer).flatMap((file) => importsOf(file)));

describe('package boundaries', () => {
  it('the walk sees the real graph: relative, dynamic and package-name imports', () => {
    const has = (from: string, specifier: string): boolean =>
      edges.some((e) => e.from === from && e.specifier === specifier);
    expect(has(join('src', 'runtime', 'lazy-sandbox.ts'), '../../sandbox/process-sandbox.ts')).toBe(true); // dynamic import()
    expect(has(join('src', 'index.ts'), './runtime/create-tool-runtime.ts')).toBe(true); // re-export
    expect(has(join('examples', 'agent-loop', 'agent-loop.ts'), 'ptc-runtime/adapters/anthropic')).toBe(true);
    expect(new Set(edges.map((e) => layerOf(e.from)))).toStrictEqual(new Set(LAYERS));
  });

  it('src/ never imports examples/ or bench/; sdk-gen/ and sandbox/ never import src/; sdk-gen/ never imports sandbox/; examples/ use only public entries', () => {
    expect(boundaryViolations(edges)).toStrictEqual([]);
  });

  it('the rules catch each kind of breach', () => {
    const breaches: ImportEdge[] = [
      { from: join('src', 'cli', 'x.ts'), specifier: '../../examples/a.ts', target: join('examples', 'a.ts') },
      { from: join('src', 'cli', 'x.ts'), specifier: '../../bench/a.ts', target: join('bench', 'a.ts') },
      { from: join('sandbox', 'x.ts'), specifier: '../src/a.ts', target: join('src', 'a.ts') },
      { from: join('sdk-gen', 'x.ts'), specifier: '../src/a.ts', target: join('src', 'a.ts') },
      { from: join('sdk-gen', 'x.ts'), specifier: '../sandbox/a.ts', target: join('sandbox', 'a.ts') },
      { from: join('examples', 'x.ts'), specifier: '../src/index.ts', target: join('src', 'index.ts') },
      { from: join('examples', 'x.ts'), specifier: 'ptc-runtime/src/index.ts' },
      { from: join('src', 'x.ts'), specifier: 'ptc-runtime' },
    ];
    expect(boundaryViolations(breaches)).toHaveLength(breaches.length);
    expect(boundaryViolations([{ from: join('examples', 'x.ts'), specifier: 'ptc-runtime/demo' }])).toStrictEqual([]);
  });

  it('package.json exports the root, the adapters, mcp, demo, sandbox and sdk-gen, each with types and the sources for the ptc-source condition', () => {
    expect(exportKeys).toEqual(
      expect.arrayContaining([
        '.',
        './adapters/anthropic',
        './adapters/openai',
        './adapters/ai-sdk',
        './mcp',
        './demo',
        './sandbox',
        './sdk-gen',
      ]),
    );
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, string | Record<string, string>>;
    };
    for (const [key, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') continue;
      const source = target['ptc-source']!;
      expect([key, readFileSync(join(root, source), 'utf8').length > 0]).toStrictEqual([key, true]);
      const stem = source.replace(/^\.\//, './dist/').replace(/\.ts$/, '');
      // `default` serves import and require (Node 24 requires ES modules); the root's `require`
      // goes through a CommonJS file that says "needs Node >= 24" on an older Node first.
      expect([key, target['types'], target['default']]).toStrictEqual([key, `${stem}.d.ts`, `${stem}.js`]);
      expect([key, target['require']]).toStrictEqual([key, key === '.' ? './dist/src/require-entry.cjs' : undefined]);
    }
  });
});
