// The built-in sandbox, loaded on its first run: isolated-vm and esbuild (and the
// sandbox process) stay out of a process that never runs a program — a runtime with
// `sandbox: false`, or one that only ever runs native tools. Only the sandbox class the
// options ask for is loaded: the process mode's host needs neither isolated-vm nor the
// guest prelude, and a burst of first runs waits for its processes to be forked.
import { resolveSandboxOptions } from '../../sandbox/sandbox-options.ts';
import type { Sandbox, SandboxOptions } from '../../sandbox/types.ts';

async function createSandboxFor(options: SandboxOptions): Promise<Sandbox> {
  const resolved = resolveSandboxOptions(options);
  if (resolved.isolation === 'in-process') {
    const { InProcessSandbox } = await import('../../sandbox/in-process-sandbox.ts');
    return new InProcessSandbox(resolved.options);
  }
  const { ProcessSandbox } = await import('../../sandbox/process-sandbox.ts');
  return new ProcessSandbox(resolved.options);
}

export function createLazySandbox(options: SandboxOptions): Sandbox {
  let loading: Promise<Sandbox> | undefined;
  let loaded: Sandbox | undefined;
  const load = (): Promise<Sandbox> => {
    if (loading !== undefined) return loading;
    // A failed load is not kept (its modules could not be read, e.g. with no file
    // descriptor left): the next run tries again.
    const attempt = createSandboxFor(options).then(
      (sandbox) => {
        if (loading === attempt) loaded = sandbox;
        return sandbox;
      },
      (error: unknown) => {
        if (loading === attempt) loading = undefined;
        throw error;
      },
    );
    loading = attempt;
    return attempt;
  };
  return {
    run: async (request) => (await load()).run(request),
    memoryInUse: () => loaded?.memoryInUse?.(),
    close: async () => {
      const pending = loading;
      loading = undefined;
      loaded = undefined;
      // Never started (or failed to start): nothing to stop.
      const sandbox = await pending?.catch(() => undefined);
      await sandbox?.close();
    },
  };
}
