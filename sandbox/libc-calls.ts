// The C library's functions through koffi (an optional dependency: an FFI with prebuilt
// binaries), for the per-thread scheduling calls Node has no API for (thread-slice.ts,
// thread-affinity.ts). Loaded once, on first use; null where koffi or a C library is
// missing, and on systems other than Linux.
import { createRequire } from 'node:module';
import { arch, platform } from 'node:process';
import type { LibraryHandle } from 'koffi';

// Loaded with require (the sandbox process's bundle runs as CommonJS and loads no ES
// modules; see bundle-sandbox-process.ts), from this package's location.
const requireFromHere = createRequire(import.meta.url);

export interface LibcCalls {
  readonly koffi: typeof import('koffi');
  readonly libc: LibraryHandle;
}

let loaded: LibcCalls | null | undefined;

/** koffi and the C library this process links (Linux only), or null. */
export function libcCalls(): LibcCalls | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (platform !== 'linux') return loaded;
  try {
    const koffi = requireFromHere('koffi') as typeof import('koffi');
    const libc = loadLibc(koffi);
    if (libc !== undefined) loaded = { koffi, libc };
  } catch {
    // koffi is not installed, or has no binary for this platform
  }
  return loaded;
}

function loadLibc(koffi: { load(path: string | null): LibraryHandle }): LibraryHandle | undefined {
  // glibc, musl, then whatever the process itself links.
  for (const name of ['libc.so.6', `libc.musl-${arch === 'x64' ? 'x86_64' : 'aarch64'}.so.1`, null]) {
    try {
      return koffi.load(name);
    } catch {
      // not this C library
    }
  }
  return undefined;
}
