// The root entry (and the CLI's startup) must not load a provider SDK or the MCP SDK:
// they live on their own subpaths. Walks the static import graph of the sources.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OPTIONAL = /^(@opentelemetry\/|@modelcontextprotocol\/|@anthropic-ai\/|ai$|ai\/|openai$|zod$)/u;

/** Every bare package a module statically imports, through its relative imports. */
function staticPackages(entry: string): Map<string, string> {
  const packages = new Map<string, string>(); // package -> first importing file
  const seen = new Set<string>();
  const stack = [resolve(ROOT, entry)];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    // Static imports and re-exports only (`import type` is erased); dynamic import() is lazy by design.
    for (const match of source.matchAll(
      /^(?:import|export)\s+(?!type\b)[^'";]*?from\s+'([^']+)'|^import\s+'([^']+)'/gmu,
    )) {
      const spec = match[1] ?? match[2]!;
      if (spec.startsWith('.')) stack.push(resolve(dirname(file), spec));
      else if (!packages.has(spec)) packages.set(spec, file.slice(ROOT.length));
    }
  }
  return packages;
}

describe('entry isolation', () => {
  it.each(['src/index.ts', 'src/cli/main.ts'])('%s loads no provider SDK or MCP SDK', (entry) => {
    const offenders = [...staticPackages(entry)].filter(([pkg]) => OPTIONAL.test(pkg));
    expect(offenders).toEqual([]);
  });

  it('the subpaths do load them (the walker sees imports)', () => {
    expect([...staticPackages('src/mcp/index.ts').keys()]).toEqual(
      expect.arrayContaining(['@modelcontextprotocol/sdk/server/mcp.js']),
    );
    expect([...staticPackages('src/adapters/ai-sdk.ts').keys()]).toContain('ai');
  });

  it('package.json maps each subpath to its built module with types', () => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    expect(pkg.exports).toEqual(
      expect.objectContaining({
        '.': {
          'ptc-source': './src/index.ts',
          types: './dist/src/index.d.ts',
          require: './dist/src/require-entry.cjs',
          default: './dist/src/index.js',
        },
        './mcp': {
          'ptc-source': './src/mcp/index.ts',
          types: './dist/src/mcp/index.d.ts',
          default: './dist/src/mcp/index.js',
        },
        './adapters/anthropic': {
          'ptc-source': './src/adapters/anthropic.ts',
          types: './dist/src/adapters/anthropic.d.ts',
          default: './dist/src/adapters/anthropic.js',
        },
        './adapters/openai': {
          'ptc-source': './src/adapters/openai.ts',
          types: './dist/src/adapters/openai.d.ts',
          default: './dist/src/adapters/openai.js',
        },
        './adapters/ai-sdk': {
          'ptc-source': './src/adapters/ai-sdk.ts',
          types: './dist/src/adapters/ai-sdk.d.ts',
          default: './dist/src/adapters/ai-sdk.js',
        },
      }),
    );
  });
});
