import { allocateTypeNames, RESERVED_TYPE_NAMES } from './allocate-type-names.ts';
import { DEFAULT_DEFERRED_BUDGET, DEFERRED_TYPE, deferredListing } from './deferred-listing.ts';
import { DEFERRED_BUILTINS, deferredHeading, SDK_PREAMBLE } from './sdk-preamble.ts';
import { toolDeclarations } from './tool-declarations.ts';
import type { GenerateSdkOptions, ToolSchema } from './tool-schema.ts';
import { SESSION_PREAMBLE } from './session-preamble.ts';

const DEFAULT_MAX_DEPTH = 16;
// Types stop being useful long before this; the cap also bounds the renderer's recursion.
const MAX_MAX_DEPTH = 256;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `string ${JSON.stringify(value)}` : typeof value;
}

function isSchema(value: unknown): boolean {
  return typeof value === 'boolean' || (typeof value === 'object' && value !== null && !Array.isArray(value));
}

function resolveMaxDepth(options: GenerateSdkOptions): number {
  const { maxDepth = DEFAULT_MAX_DEPTH } = options;
  if (!Number.isInteger(maxDepth) || maxDepth < 0 || maxDepth > MAX_MAX_DEPTH) {
    throw new RangeError(
      `generateSdk: expected options.maxDepth to be an integer from 0 to ${MAX_MAX_DEPTH}, got ${String(maxDepth)}`,
    );
  }
  return maxDepth;
}

function validateTools(tools: readonly ToolSchema[]): void {
  if (!Array.isArray(tools)) {
    throw new TypeError(`generateSdk: expected an array of tool schemas, got ${describe(tools)}`);
  }
  const seen = new Map<string, number>();
  tools.forEach((tool: unknown, index) => {
    const where = `generateSdk: tools[${index}]`;
    if (typeof tool !== 'object' || tool === null)
      throw new TypeError(`${where} must be an object, got ${describe(tool)}`);
    const { name, description, parameters, outputSchema, deferLoading } = tool as Partial<
      Record<keyof ToolSchema, unknown>
    >;
    if (typeof name !== 'string') throw new TypeError(`${where}.name must be a string, got ${describe(name)}`);
    const at = `${where} (${JSON.stringify(name)})`;
    if (typeof description !== 'string') {
      throw new TypeError(`${at}.description must be a string, got ${describe(description)}`);
    }
    if (!isSchema(parameters)) {
      throw new TypeError(`${at}.parameters must be a JSON Schema object or boolean, got ${describe(parameters)}`);
    }
    if (outputSchema !== undefined && !isSchema(outputSchema)) {
      throw new TypeError(
        `${at}.outputSchema must be a JSON Schema object or boolean when present, got ${describe(outputSchema)}`,
      );
    }
    const { notes } = tool as { notes?: unknown };
    if (notes !== undefined && !(Array.isArray(notes) && notes.every((line) => typeof line === 'string'))) {
      throw new TypeError(`${at}.notes must be an array of strings when present, got ${describe(notes)}`);
    }
    if (deferLoading !== undefined && typeof deferLoading !== 'boolean') {
      throw new TypeError(`${at}.deferLoading must be a boolean when present, got ${describe(deferLoading)}`);
    }
    const first = seen.get(name);
    if (first !== undefined) {
      throw new Error(
        `generateSdk: duplicate tool name ${JSON.stringify(name)} at tools[${first}] and tools[${index}]; tool names must be unique`,
      );
    }
    seen.set(name, index);
  });
}

// Code-unit order, not localeCompare: the same on every machine and locale.
function byName(a: ToolSchema, b: ToolSchema): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function resolveBudget(options: GenerateSdkOptions): number {
  const { deferredBudget = DEFAULT_DEFERRED_BUDGET } = options;
  if (!Number.isSafeInteger(deferredBudget) || deferredBudget < 0) {
    throw new RangeError(
      `generateSdk: expected options.deferredBudget to be a non-negative integer (characters), got ${String(deferredBudget)}`,
    );
  }
  return deferredBudget;
}

/**
 * The SDK text shown to the model for these tools: an instruction comment, the
 * `JsonValue` and `ToolCallError` declarations, one `type <Name>Args` (its root
 * closed, so a misspelled argument is a type error; and
 * `<Name>Result` when the tool has an output schema) per tool, and `declare const
 * tools` with one doc-commented method per tool, sorted by wire name. Deferred
 * tools are listed last, by name and one-line summary, in a comment.
 *
 * Pure and deterministic: identical input gives byte-identical text. Throws a
 * TypeError/RangeError naming the offending field for malformed input, and an
 * Error for duplicate tool names.
 *
 * @example
 * generateSdk([{ name: 'search_orders', description: 'Search orders.', parameters: {
 *   type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }]);
 * // ...
 * // type SearchOrdersArgs = { q: string };
 * // declare const tools: {
 * //   /** Search orders. *\/ search_orders(args: SearchOrdersArgs): Promise<JsonValue>;
 * // };
 */
export function generateSdk(tools: readonly ToolSchema[], options: GenerateSdkOptions = {}): string {
  const maxDepth = resolveMaxDepth(options);
  validateTools(tools);
  const sorted = [...tools].sort(byName);
  const loaded = sorted.filter((tool) => tool.deferLoading !== true);
  const deferred = sorted.filter((tool) => tool.deferLoading === true);
  const taken = new Set(RESERVED_TYPE_NAMES);
  const typeNames = allocateTypeNames(
    loaded.map((tool) => tool.name),
    taken,
  );

  const out: string[] = options.sessions === true ? [SDK_PREAMBLE, SESSION_PREAMBLE] : [SDK_PREAMBLE];
  const methods: string[] = [];
  loaded.forEach((tool, index) => {
    const declarations = toolDeclarations(tool, typeNames[index] ?? 'Tool', taken, maxDepth);
    out.push(...declarations.types);
    methods.push(declarations.method);
  });
  let unlisted = 0;
  if (deferred.length > 0) {
    out.push(DEFERRED_TYPE);
    const listing = deferredListing(deferred, resolveBudget(options));
    unlisted = listing.unlisted;
    methods.push(deferredHeading(deferred.length), ...listing.lines);
    if (unlisted > 0)
      methods.push(`  // …and ${unlisted} more deferred tools, not listed here: find them with tools.$search.`);
    methods.push(...DEFERRED_BUILTINS);
  }
  const members = methods.length === 0 ? '{}' : `{\n${methods.join('\n')}\n}`;
  // Unlisted deferred tools are still callable: any other name is a loosely typed tool.
  out.push(`declare const tools: ${members}${unlisted > 0 ? ' & { readonly [name: string]: Deferred }' : ''};`);
  return `${out.join('\n')}\n`;
}
