// The names no tool may register: the PTC entry point and the SDK's built-ins. Apart from
// the registry so that who-made-a-call (pipeline/tool-caller.ts) can name run_code without
// importing the registry.
/** The one name no tool may take, in any mode: the PTC entry point. */
export const RUN_CODE = 'run_code';
/** Built-in SDK functions of ptc programs that load and find deferred tools; reserved like run_code. */
export const DESCRIBE_TOOL = '$describe';
export const SEARCH_TOOL = '$search';
