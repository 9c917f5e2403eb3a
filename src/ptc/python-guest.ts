// The Python guest as the runtime uses it: the Python SDK per agent (the stubs the
// model reads, the prefix programs are type-checked against, the function → tool map),
// the Python sandbox (Monty, loaded on the first run) and the type check.
import { montyInstalled, MONTY_MISSING_MESSAGE } from '../../sandbox/python/load-monty.ts';
import type { PythonSandbox } from '../../sandbox/python/python-sandbox.ts';
import type { GuestSuspension, RunOutcome, RunRequest, SandboxLimits } from '../../sandbox/types.ts';
import { generatePythonSdk, type PythonSdk } from '../../sdk-gen/python/generate-python-sdk.ts';
import type { ToolSchema } from '../../sdk-gen/tool-schema.ts';
import type { ToolSchemaProjection } from '../definition/tool-schema-projection.ts';
import type { TypeCheckOutcome } from './program-type-checker.ts';

export const PYTHON_RUN_CODE_DESCRIPTION =
  'Run Python: `code` is a Python program; call the functions below with keyword arguments, and make the answer ' +
  'its last expression (or print it). Only that comes back.';

export const PYTHON_CODE_PARAMETER_DESCRIPTION = 'A Python program; its last expression is the result.';

export interface PythonGuest {
  /** The Python SDK of the agent's visible tools (rebuilt when the registry changes). */
  sdk(agent: string | undefined): PythonSdk;
  /** Runs a Python program with the agent's functions (a paused one from its saved state). */
  run(agent: string | undefined, request: RunRequest, resumeFrom?: GuestSuspension): Promise<RunOutcome>;
  /** Checks a program against the agent's stubs with Monty's type checker. */
  check(agent: string | undefined, code: string): Promise<TypeCheckOutcome>;
  close(): Promise<void>;
}

export interface PythonGuestSource {
  /** The agent's visible tools as sdk-gen takes them. */
  visible(agent: string | undefined): ToolSchema[];
  /** Changes whenever the registry does. */
  version(): number;
  readonly limits: Partial<SandboxLimits>;
}

/** Throws one line naming the package to install when Monty is missing. */
export function requireMonty(): void {
  if (!montyInstalled()) throw new Error(MONTY_MISSING_MESSAGE);
}

export function createPythonGuest(source: PythonGuestSource): PythonGuest {
  const cache = new Map<string, PythonSdk>();
  let cachedVersion = -1;
  let sandbox: Promise<PythonSandbox> | undefined;
  const sdk = (agent: string | undefined): PythonSdk => {
    if (source.version() !== cachedVersion) {
      cache.clear();
      cachedVersion = source.version();
    }
    let built = cache.get(agent ?? '');
    if (built === undefined) {
      built = generatePythonSdk(source.visible(agent));
      cache.set(agent ?? '', built);
    }
    return built;
  };
  const loadSandbox = (): Promise<PythonSandbox> => {
    sandbox ??= import('../../sandbox/python/python-sandbox.ts').then(({ PythonSandbox }) =>
      PythonSandbox.create(source.limits),
    );
    sandbox.catch(() => {
      sandbox = undefined;
    });
    return sandbox;
  };
  return {
    sdk,
    run: async (agent, request, resumeFrom) =>
      (await loadSandbox()).run({
        ...request,
        functions: sdk(agent).functions,
        ...(resumeFrom === undefined ? {} : { resumeFrom }),
      }),
    check: async (agent, code) => (await loadSandbox()).typeCheck(code, sdk(agent).typeCheckPrefix),
    close: async () => {
      const started = sandbox;
      sandbox = undefined;
      await (await started?.catch(() => undefined))?.close();
    },
  };
}

/** run_code's schema as a Python agent sees it: the Python description and `code`'s. */
export function pythonRunCodeSchema(base: ToolSchemaProjection): ToolSchemaProjection {
  const parameters = base.parameters as { readonly properties?: { readonly [key: string]: object } };
  const code = parameters.properties?.code;
  return Object.freeze({
    ...base,
    description: PYTHON_RUN_CODE_DESCRIPTION,
    parameters:
      code === undefined
        ? base.parameters
        : {
            ...parameters,
            properties: { ...parameters.properties, code: { ...code, description: PYTHON_CODE_PARAMETER_DESCRIPTION } },
          },
  });
}
