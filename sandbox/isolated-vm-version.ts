// Warns once per process when the installed isolated-vm predates 7.0.1, the release
// that fixes GHSA-864f-rcv7-6rh4 (host memory corruption through an ExternalCopy).
import { createRequire } from 'node:module';

export const MIN_ISOLATED_VM = '7.0.1';

let checked = false;

/** Throws when isolated-vm's package.json cannot be read (not installed, or no file descriptor left). */
function readIsolatedVmVersion(): string | undefined {
  const version = (createRequire(import.meta.url)('isolated-vm/package.json') as { version?: unknown }).version;
  return typeof version === 'string' ? version : undefined;
}

export function installedIsolatedVmVersion(): string | undefined {
  try {
    return readIsolatedVmVersion();
  } catch {
    return undefined;
  }
}

/** True when `version` >= `minimum` (numeric major.minor.patch; pre-release tags ignored). */
export function versionAtLeast(version: string, minimum: string): boolean {
  const parse = (text: string): number[] =>
    text
      .split('-')[0]!
      .split('.')
      .map((part) => Number.parseInt(part, 10) || 0);
  const have = parse(version);
  const want = parse(minimum);
  for (let i = 0; i < 3; i++) {
    const a = have[i] ?? 0;
    const b = want[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

export function warnIfOldIsolatedVm(): void {
  if (checked) return;
  let version: string | undefined;
  try {
    version = readIsolatedVmVersion();
  } catch (error) {
    // Unreadable for now (EMFILE, say), not missing: no false warning; a later call checks.
    if ((error as { code?: unknown } | null)?.code !== 'MODULE_NOT_FOUND') return;
  }
  checked = true;
  if (version === undefined || !versionAtLeast(version, MIN_ISOLATED_VM)) {
    console.warn(
      `ptc-runtime sandbox: isolated-vm ${version ?? '(version unknown)'} is installed; ${MIN_ISOLATED_VM} or later is required ` +
        'for the fix of GHSA-864f-rcv7-6rh4. Upgrade isolated-vm.',
    );
  }
}
