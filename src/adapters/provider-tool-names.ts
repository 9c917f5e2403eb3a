// Providers refuse tool names outside `^[a-zA-Z0-9_-]{1,N}$` (Anthropic: N = 128,
// OpenAI: N = 64), while our names may hold dots, colons or any Unicode (MCP tools are
// often called `tickets.count`). The adapters send a safe alias and map it back.
// An alias depends only on the set of names, never on their order, so the same tools
// always get the same aliases; names that are already safe are sent unchanged.
import { createHash } from 'node:crypto';
import type { AgentRef } from '../registry/tool-registry.ts';
import type { ToolRuntime, ToolSchemaProjection } from '../runtime/create-tool-runtime.ts';

/** Longest tool name each provider accepts. */
export const ANTHROPIC_MAX_TOOL_NAME = 128;
export const OPENAI_MAX_TOOL_NAME = 64;

const UNSAFE = /[^a-zA-Z0-9_-]/g;
const HASH_LENGTH = 8;

const isSafe = (name: string, maxLength: number): boolean =>
  name.length >= 1 && name.length <= maxLength && !/[^a-zA-Z0-9_-]/.test(name);

/** `<readable part>_<8 hex of the name's SHA-256>` (more hex when `hashLength` says). */
function hashedAlias(name: string, maxLength: number, hashLength = HASH_LENGTH): string {
  const hash = createHash('sha256').update(name).digest('hex').slice(0, hashLength);
  const readable = name.replace(UNSAFE, '_').slice(0, maxLength - hashLength - 1);
  return `${readable}_${hash}`;
}

/**
 * The hashed alias, lengthened while another tool already has that name (a registered
 * tool may itself be called `x_y_b24ca9b7`): two tools never share a name.
 */
function freeHashedAlias(name: string, maxLength: number, taken: ReadonlySet<string>): string {
  for (let length = HASH_LENGTH; length <= 64; length += 8) {
    const alias = hashedAlias(name, maxLength, length);
    if (!taken.has(alias)) return alias;
  }
  // 64 hex of SHA-256 taken too: not reachable short of a hash collision; a counter ends it.
  for (let n = 2; ; n += 1) {
    const alias = `${hashedAlias(name, maxLength - String(n).length - 1)}_${n}`;
    if (!taken.has(alias)) return alias;
  }
}

/**
 * Registered name → the name a provider gets, for a whole tool list. A safe name is
 * itself. An unsafe one becomes its characters with `_` for each unsafe one (`tickets.count`
 * → `tickets_count`) when that is short enough and no other tool has or gets that name;
 * otherwise a hashed alias (`tickets_count_1f0c9a2b`).
 */
export function providerToolNames(names: readonly string[], maxLength: number): Map<string, string> {
  const aliases = new Map<string, string>();
  const taken = new Set<string>();
  for (const name of names) {
    if (isSafe(name, maxLength)) {
      aliases.set(name, name);
      taken.add(name);
    }
  }
  // Code-unit order, so that which of two colliding names keeps the short alias does not
  // depend on the order the tools were listed in.
  const unsafe = [...new Set(names.filter((name) => !aliases.has(name)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const simple = new Map<string, number>();
  for (const name of unsafe) {
    const alias = name.replace(UNSAFE, '_');
    simple.set(alias, (simple.get(alias) ?? 0) + 1);
  }
  for (const name of unsafe) {
    const alias = name.replace(UNSAFE, '_');
    // Two unsafe names with the same simple alias both get hashed ones: neither wins by order.
    const chosen =
      isSafe(alias, maxLength) && !taken.has(alias) && simple.get(alias) === 1
        ? alias
        : freeHashedAlias(name, maxLength, taken);
    aliases.set(name, chosen);
    taken.add(chosen);
  }
  return aliases;
}

/** Where the registered names come from when a provider's name is mapped back. */
export type ToolNameSource = ToolRuntime | readonly ToolSchemaProjection[];

export interface ToolNameOptions {
  /** The agent whose tool list was sent (with a runtime as the source). @default the global scope */
  readonly agent?: AgentRef;
}

/**
 * Maps a name the provider sent back to the registered name, using the tool list that
 * was sent (the runtime's `schemas()` for the agent, or the list itself). A name that
 * is no alias (a safe name, or one the model made up) is returned unchanged, so the
 * runtime answers it as it would any other name.
 */
export function registeredToolNames(
  source: ToolNameSource | undefined,
  maxLength: number,
  options: ToolNameOptions = {},
): (name: string) => string {
  if (source === undefined) return (name) => name;
  const schemas = Array.isArray(source)
    ? (source as readonly ToolSchemaProjection[])
    : (source as ToolRuntime).schemas(options.agent === undefined ? {} : { agent: options.agent });
  const back = new Map<string, string>();
  const aliases = providerToolNames(
    schemas.map((s) => s.name),
    maxLength,
  );
  const sent = new Set(aliases.values());
  for (const [name, alias] of aliases) {
    if (alias !== name) {
      back.set(alias, name);
      // An older conversation may hold the hashed alias of a name that has a short one
      // now — unless that text is the name some tool is sent under today.
      const older = hashedAlias(name, maxLength);
      if (!sent.has(older)) back.set(older, name);
    }
  }
  return (name) => back.get(name) ?? name;
}
