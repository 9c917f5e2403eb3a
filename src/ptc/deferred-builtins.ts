// The built-in SDK functions that make large tool sets usable in ptc mode. Deferred
// tools are listed in the SDK by name and summary only; a program loads one with
// `tools.$describe({ name })` (its full TypeScript signature, as text, to read in this
// run and call in the next) and finds tools with `tools.$search({ query })`. Both are
// host tools reached like any SDK call, so they pass the whole pipeline, and they
// only ever see the calling agent's visible tools.
import { describeTool } from '../../sdk-gen/index.ts';
import { defineTool, type Tool } from '../definition/define-tool.ts';
import { ToolRuntimeError } from '../errors/tool-runtime-error.ts';
import { DESCRIBE_TOOL, SEARCH_TOOL } from '../registry/tool-registry.ts';

export interface DeferredBuiltinsDeps {
  /** The agent's visible tools, after scope and restrictions. */
  visible(agent: string | undefined): readonly Tool[];
}

/** Longest query read; the words past it are ignored (the host's work stays bounded). */
export const MAX_SEARCH_QUERY = 1_000;
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;
const SUMMARY_LENGTH = 120;

const words = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);

function summaryOf(description: string): string {
  const line = description.replace(/\s+/g, ' ').trim();
  return line.length > SUMMARY_LENGTH ? `${line.slice(0, SUMMARY_LENGTH - 1).trimEnd()}…` : line;
}

/**
 * Tools ranked by how many of the query's words they contain: a word in the name
 * counts twice (the start of a name word once), in the description once (the start of
 * a description word half); ties keep name order. Linear in the tools'
 * text; at most `limit` results.
 */
export function searchTools(tools: readonly Tool[], query: string, limit: number): { name: string; summary: string }[] {
  const wanted = [...new Set(words(query.slice(0, MAX_SEARCH_QUERY)))].slice(0, 32);
  if (wanted.length === 0) return [];
  const scored: { tool: Tool; score: number }[] = [];
  for (const tool of tools) {
    const { name, nameWords, description, descriptionWords } = indexOf(tool);
    let score = 0;
    for (const word of wanted) {
      if (name.has(word)) score += 2;
      else if (hasPrefix(nameWords, word)) score += 1;
      if (description.has(word)) score += 1;
      // A model searches "refund" for a tool that "Refunds a payment": a word that starts a
      // description word counts too, below an exact one (3+ letters, so "a" matches nothing).
      else if (word.length >= 3 && hasPrefix(descriptionWords, word)) score += 0.5;
    }
    if (score > 0) scored.push({ tool, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0));
  return scored.slice(0, limit).map(({ tool }) => ({ name: tool.name, summary: summaryOf(tool.description) }));
}

interface SearchIndex {
  readonly name: ReadonlySet<string>;
  /** Sorted. */
  readonly nameWords: readonly string[];
  readonly description: ReadonlySet<string>;
  /** Sorted. */
  readonly descriptionWords: readonly string[];
}

/** Each tool's words, tokenized once per definition (a tool is immutable once registered). */
const indexes = new WeakMap<Tool, SearchIndex>();

function indexOf(tool: Tool): SearchIndex {
  let index = indexes.get(tool);
  if (index === undefined) {
    const name = new Set(words(tool.name));
    const description = new Set(words(tool.description));
    index = { name, nameWords: [...name].sort(), description, descriptionWords: [...description].sort() };
    indexes.set(tool, index);
  }
  return index;
}

/** Whether a word of `sorted` (sorted) starts with `prefix`: the first word not below it is the only candidate. */
function hasPrefix(sorted: readonly string[], prefix: string): boolean {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as string) < prefix) low = mid + 1;
    else high = mid;
  }
  return low < sorted.length && (sorted[low] as string).startsWith(prefix);
}

/** `$search` calls one run (a root call and everything nested in it) may make. */
export const MAX_SEARCHES_PER_RUN = 100;
/** Runs whose search count is remembered; the oldest is forgotten past it. */
const COUNTED_RUNS = 4_096;

/** `$describe` and `$search`, by name. */
export function createDeferredBuiltins(deps: DeferredBuiltinsDeps): ReadonlyMap<string, Tool> {
  const describe = defineTool({
    name: DESCRIBE_TOOL,
    description: 'The full TypeScript signature of a tool, as text.',
    parameters: { name: { type: 'string', required: true, minLength: 1, maxLength: 1_000 } },
    output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
    isConcurrencySafe: () => true,
    effect: 'read',
    execute: ({ name }, exec) => {
      const tool = deps.visible(exec.agent).find((candidate) => candidate.name === name);
      if (tool === undefined) {
        throw new ToolRuntimeError(
          'UNKNOWN_TOOL',
          `${DESCRIBE_TOOL}: no tool named ${JSON.stringify(name)}; find tools with tools.${SEARCH_TOOL}({ query })`,
        );
      }
      return describeTool({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        outputSchema: tool.outputSchema,
      });
    },
  });
  /** Searches per run, by root callId, oldest first. */
  const searches = new Map<string, number>();
  const search = defineTool({
    name: SEARCH_TOOL,
    description: "Tools whose name or description contain the query's words, best first.",
    effect: 'read',
    parameters: {
      query: { type: 'string', required: true },
      limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_LIMIT },
    },
    output: {
      schema: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          properties: { name: { type: 'string', required: true }, summary: { type: 'string', required: true } },
        },
      },
      render: (_args, value) => [{ type: 'text', text: value.map((hit) => `${hit.name}: ${hit.summary}`).join('\n') }],
    },
    isConcurrencySafe: () => true,
    execute: ({ query, limit }, exec) => {
      const used = (searches.get(exec.rootCallId) ?? 0) + 1;
      searches.delete(exec.rootCallId);
      searches.set(exec.rootCallId, used);
      if (searches.size > COUNTED_RUNS) searches.delete(searches.keys().next().value as string);
      if (used > MAX_SEARCHES_PER_RUN) {
        throw new ToolRuntimeError(
          'TOOL_ERROR',
          `${SEARCH_TOOL}: this run has searched ${MAX_SEARCHES_PER_RUN} times (MAX_SEARCHES_PER_RUN); use the results you have, or search once with several words`,
        );
      }
      return searchTools(deps.visible(exec.agent), query, limit ?? DEFAULT_SEARCH_LIMIT);
    },
  });
  return new Map([
    [DESCRIBE_TOOL, describe],
    [SEARCH_TOOL, search],
  ]);
}
