// Copies the non-TypeScript files the built package needs next to its compiled code.
// Usage: node scripts/copy-assets.mjs <outDir>   (what `npm run build` does with dist)
import { cpSync } from 'node:fs';
import { join } from 'node:path';

const outDir = process.argv[2] ?? 'dist';
// The sandbox process runs from its committed CommonJS bundle (see sandbox/bundle-sandbox-process.ts).
const assets = ['src/demo/shop-data.json', 'sandbox/sandbox-process.bundle.cjs', 'src/require-entry.cjs'];
for (const asset of assets) cpSync(asset, join(outDir, asset));
