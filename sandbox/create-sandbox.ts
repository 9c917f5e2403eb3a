// Entry point: a sandbox in a dedicated child process (default) or in this process.
import { InProcessSandbox } from './in-process-sandbox.ts';
import { ProcessSandbox } from './process-sandbox.ts';
import { resolveSandboxOptions } from './sandbox-options.ts';
import type { Sandbox, SandboxOptions } from './types.ts';

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const resolved = resolveSandboxOptions(options);
  if (resolved.isolation === 'in-process') return new InProcessSandbox(resolved.options);
  return new ProcessSandbox(resolved.options);
}
