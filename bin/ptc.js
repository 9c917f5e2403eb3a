#!/usr/bin/env -S node --no-node-snapshot
// The `ptc` CLI. In a checkout (src/ present) it runs the TypeScript sources directly
// (Node >= 24 strips types), so a stale dist/ is never used by mistake; an installed
// package ships only the built dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../src/cli/main.ts', import.meta.url);
const built = new URL('../dist/src/cli/main.js', import.meta.url);
const { main } = await import(existsSync(fileURLToPath(source)) ? source.href : built.href);
process.exitCode = await main(process.argv.slice(2));
