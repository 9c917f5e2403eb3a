/**
 * The fixed head of every SDK: how to write a program (as line comments, so the
 * whole SDK stays valid TypeScript) and the declarations every tool type uses.
 * Kept short on purpose: the model pays for each character on every turn.
 */
export const SDK_PREAMBLE = `// Your code is the body of an async function: await tool calls, then \`return\` the answer or print it with console.log.
// Call a tool with \`await tools.name(args)\`, or \`await tools["odd-name"](args)\` when the name is not an identifier.
// A failed call rejects with a ToolCallError (fields toolName, code, message). Cancel one with \`tools.name(args, { signal })\`.
// Run independent read-only calls together: \`await Promise.all([...])\`.
// Web globals exist: setTimeout/setInterval, structuredClone, URL, TextEncoder/TextDecoder, atob/btoa, crypto (randomUUID, getRandomValues, subtle.digest), AbortController/AbortSignal, performance.now. No fetch, process, require or Buffer.
type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
declare class ToolCallError extends Error { readonly toolName: string; readonly code: string; }
type CallOptions = { signal?: AbortSignal };`;

/**
 * Heads the deferred tools inside `tools`: they are listed by name and summary only
 * (their schemas are not sent), typed loosely; the model loads one with `$describe`
 * (its full signature, as text) and finds others with `$search`. Arguments are
 * checked when called — a wrong call fails with INVALID_ARGS saying what is wrong.
 */
export function deferredHeading(count: number): string {
  return `  // Deferred tools (${count}): name and summary only. Before calling one, print its signature with console.log(await tools.$describe({ name: "…" })) and call it in your next program; find tools by keyword with tools.$search({ query: "…" }).`;
}

/** The built-in members that load and find deferred tools (served by the runtime). */
export const DEFERRED_BUILTINS = [
  '  /** The full TypeScript signature of a tool, as text. */ $describe(args: { name: string }): Promise<string>;',
  "  /** Tools whose name or description contain the query's words, best first (at most limit, default 10). */ $search(args: { query: string; limit?: number }): Promise<{ name: string; summary: string }[]>;",
] as const;
