// The built-in sandbox, loaded on its first run: isolated-vm and esbuild (and the
// sandbox process) stay out of a process that never runs a program — a runtime with
// `sandbox: false`, or one that only ever runs native tools.
import type { Sandbox, SandboxOptions } from '../../sandbox/types.ts';

export function createLazySandbox(options: SandboxOptions): Sandbox {
  let loading: Promise<Sandbox> | undefined;
  let loaded: Sandbox | undefined;
  const load = (): Promise<Sandbox> => {
    loading ??= import('../../sandbox/create-sandbox.ts').then(
      ({ createSandbox }) => (loaded = createSandbox(options)),
    );
    return loading;
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
