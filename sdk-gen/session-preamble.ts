/**
 * What the SDK adds when sessions are on: how the global `state` carries data from one
 * program to the next (one line, as the model pays for it on every turn), and its
 * declaration for the type check (any data: the program decides its shape).
 */
export const SESSION_PREAMBLE = `// \`state\` (a global) keeps data for your next program: pass run_code's \`session\` from the last result; it holds data only (Map, Set, Date fine; no functions or class instances).
declare var state: any;`;
