#!/usr/bin/env -S node --no-node-snapshot
// The `ptc` CLI. In a checkout (src/ present) it runs the TypeScript sources directly
// (Node >= 24 strips types), so a stale dist/ is never used by mistake, and a tools
// module that imports `ptc-runtime` gets the sources too (the `ptc-source` condition);
// an installed package ships only the built dist/.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  process.stderr.write(
    `ptc: ptc-runtime needs Node >= 24 (found ${process.versions.node}); install Node 24 or later and run it again\n`,
  );
  process.exit(2);
}
// Node keeps compiled modules on disk (os.tmpdir()/node-compile-cache, or NODE_COMPILE_CACHE):
// the CLI loads several hundred modules per start, and a cached start takes about half as long.
module.enableCompileCache?.();
const source = new URL('../src/cli/main.ts', import.meta.url);
const built = new URL('../dist/src/cli/main.js', import.meta.url);
const inCheckout = existsSync(fileURLToPath(source));
if (inCheckout)
  module.registerHooks({
    resolve: (specifier, context, nextResolve) =>
      nextResolve(specifier, { ...context, conditions: [...context.conditions, 'ptc-source'] }),
  });
const { main } = await import(inCheckout ? source.href : built.href);
process.exitCode = await main(process.argv.slice(2));
