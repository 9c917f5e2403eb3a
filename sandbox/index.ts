// Public API of the sandbox: compile a model's TypeScript program and run it in a fresh
// isolated-vm isolate, with every SDK call crossing to the host as JSON text.
export { createSandbox } from './create-sandbox.ts';
export { compileProgram, type CompileOptions, type CompileResult, type CompiledProgram } from './compile-program.ts';
export { DEFAULT_LIMITS } from './limits.ts';
export { InProcessSandbox, type InProcessSandboxOptions } from './in-process-sandbox.ts';
export { ProcessSandbox, type ProcessSandboxOptions } from './process-sandbox.ts';
export type { ProcessView } from './sandbox-child.ts';
export type {
  FailureKind,
  GuestSuspension,
  HostCall,
  HostCallOutcome,
  HostCallRequest,
  JsonValue,
  ProgramState,
  RunDeterminism,
  RunOutcome,
  RunRequest,
  Sandbox,
  SandboxLimits,
  SandboxOptions,
  StateOutcome,
} from './types.ts';
