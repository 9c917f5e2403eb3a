// Injected into the sandbox process's bundle only (bundle-sandbox-process.ts): CommonJS has
// no import.meta.url, so the bundle's own file URL stands in for it (libc-calls.ts
// resolves koffi from there).
import { pathToFileURL } from 'node:url';

export const bundleFileUrl = pathToFileURL(__filename).href;
