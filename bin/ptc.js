#!/usr/bin/env -S node --no-node-snapshot
// The `ptc` CLI. Runs the built entry when present (installed package), else the
// TypeScript sources directly (Node >= 22.18 strips types), so a checkout needs no build.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
const source = new URL('../src/cli/main.ts', import.meta.url);
const { main } = await import(existsSync(built) ? built : source.href);
process.exitCode = await main(process.argv.slice(2));
