// Monty (`@pydantic/monty`) is an optional peer dependency: loaded on the first Python
// run, and a runtime asked for the Python guest without it fails with one line saying
// what to install.
import { createRequire } from 'node:module';

/** The exact version the Python guest is built and tested against. */
export const MONTY_VERSION = '0.0.18';

export type MontyModule = typeof import('@pydantic/monty');

export const MONTY_MISSING_MESSAGE = `guest 'python' needs the optional peer dependency @pydantic/monty: npm install @pydantic/monty@${MONTY_VERSION}`;

let loading: Promise<MontyModule> | undefined;

/** Monty's module, or an Error with MONTY_MISSING_MESSAGE when it is not installed. */
export function loadMonty(): Promise<MontyModule> {
  loading ??= import('@pydantic/monty').catch((error: unknown) => {
    loading = undefined;
    throw new Error(MONTY_MISSING_MESSAGE, { cause: error });
  });
  return loading;
}

/** Whether `@pydantic/monty` can be found from here (without loading it). */
export function montyInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('@pydantic/monty');
    return true;
  } catch {
    return false;
  }
}
