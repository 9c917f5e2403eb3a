/**
 * The fixed head of every SDK: how to call tools (as line comments, so the whole SDK
 * stays valid TypeScript; run_code's own description says what a program is) and the
 * declarations every tool uses, the call options among them: `Tool<Args, Result>`
 * declares them once for every member. Kept short on purpose: the model pays for each
 * token on every turn.
 */
export const SDK_PREAMBLE = `// A failed call throws ToolCallError. Run independent reads together with Promise.all. Globals: timers, URL, TextEncoder, atob, crypto, structuredClone; no fetch, process, require, Buffer.
type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
declare class ToolCallError extends Error { toolName: string; code: string }
type Tool<A, R = JsonValue> = (args: A, opts?: { signal?: AbortSignal }) => Promise<R>;`;

/** The line the SDK starts with when a tool's name is not an identifier (only then: it costs tokens). */
export const QUOTED_NAMES_NOTE = '// Call quoted names as `tools["a-b"](args)`.';

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
