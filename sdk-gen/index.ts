// sdk-gen: tool JSON schemas → the typed TypeScript SDK a ptc program is written
// against, and a type check of such a program. Knows nothing of src/ or sandbox/.
export { generateSdk } from './generate-sdk.ts';
export { checkProgram } from './check-program.ts';
export type { ProgramDiagnostic } from './check-program.ts';
export type { GenerateSdkOptions, JsonSchema, ToolSchema } from './tool-schema.ts';
export { describeTool } from './describe-tool.ts';
export { DEFAULT_DEFERRED_BUDGET } from './deferred-listing.ts';
export { capDescription, MAX_DESCRIPTION_CHARS } from './cap-description.ts';
export { generatePythonSdk, pythonTypeCheckPrefix } from './python/generate-python-sdk.ts';
export type {
  GeneratePythonSdkOptions,
  PythonFunctionBinding,
  PythonParameterBinding,
  PythonSdk,
} from './python/generate-python-sdk.ts';
