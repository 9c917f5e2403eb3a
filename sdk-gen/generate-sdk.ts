import { allocateTypeNames, RESERVED_TYPE_NAMES } from './allocate-type-names.ts';
import { DEFAULT_DEFERRED_BUDGET, DEFERRED_TYPE, deferredListing } from './deferred-listing.ts';
import { GLOBAL_TYPE_NAMES } from './global-type-names.ts';
import { propertyKey } from './property-key.ts';
import { DEFERRED_BUILTINS, deferredHeading, QUOTED_NAMES_NOTE, SDK_PREAMBLE } from './sdk-preamble.ts';
import { renderShared } from './shared-types.ts';
import { type ToolDeclarations, toolDeclarations } from './tool-declarations.ts';
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

/** One loaded tool's part of the SDK. */
export interface SdkToolPart {
  readonly name: string;
  /** Its `$ref` types, as declared in the SDK (before `declare const tools`). */
  readonly types: readonly string[];
  /** Its member of `declare const tools`, note lines first, as written in the SDK. */
  readonly member: string;
  /** Its result type as written in its member (`JsonValue` when it has no output schema). */
  readonly result: string;
}

/** The SDK cut into what it is made of, for measuring it (`ptc sdk --stats`). */
export interface SdkParts {
  /** The instructions and the declarations every SDK starts with. */
  readonly preamble: string;
  /** `type Order = …;`: object types declared once for every tool that uses them. */
  readonly shared: readonly { readonly name: string; readonly text: string }[];
  readonly tools: readonly SdkToolPart[];
  /** The deferred tools' listing, their loose type and the built-ins that load them ('' when none). */
  readonly deferred: string;
  /** The whole SDK: what `generateSdk` returns. */
  readonly text: string;
}

interface Round {
  readonly taken: Set<string>;
  readonly declaredRoots: Set<string>;
  readonly tools: readonly { readonly name: string; readonly declarations: ToolDeclarations }[];
}

/**
 * The SDK text shown to the model for these tools: short instructions, the `JsonValue`,
 * `ToolCallError` and `Tool<Args, Result>` declarations (the call options are declared
 * once, there), object types that several places share (declared once, named from
 * where they appear: `Order`, `Address`), and `declare const tools` with one
 * doc-commented member per tool, its arguments (the root closed, so a misspelled
 * argument is a type error) and result typed in place, sorted by wire name. Deferred
 * tools are listed last, by name and one-line summary.
 *
 * Pure and deterministic: identical input gives byte-identical text. Throws a
 * TypeError/RangeError naming the offending field for malformed input, and an
 * Error for duplicate tool names.
 *
 * @example
 * generateSdk([{ name: 'search_orders', description: 'Search orders.', parameters: {
 *   type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }]);
 * // ...
 * // declare const tools: {
 * //   /** Search orders. *\/ search_orders: Tool<{ q: string }>;
 * // };
 */
export function generateSdk(tools: readonly ToolSchema[], options: GenerateSdkOptions = {}): string {
  return sdkParts(tools, options).text;
}

/** `generateSdk`'s text and the parts it is made of. Same checks, same text. */
export function sdkParts(tools: readonly ToolSchema[], options: GenerateSdkOptions = {}): SdkParts {
  const maxDepth = resolveMaxDepth(options);
  validateTools(tools);
  const sorted = [...tools].sort(byName);
  const loaded = sorted.filter((tool) => tool.deferLoading !== true);
  const deferred = sorted.filter((tool) => tool.deferLoading === true);
  const reserved = new Set([...RESERVED_TYPE_NAMES, ...GLOBAL_TYPE_NAMES]);
  const bases = new Set(reserved);
  const typeNames = allocateTypeNames(
    loaded.map((tool) => tool.name),
    bases,
  );
  const rootNames = new Set([...bases].filter((name) => !reserved.has(name)));

  const rendering = renderShared<Round>(
    (shareObject) => {
      const taken = new Set(bases);
      const declaredRoots = new Set<string>();
      return {
        taken,
        declaredRoots,
        tools: loaded.map((tool, index) => ({
          name: tool.name,
          declarations: toolDeclarations(tool, typeNames[index] ?? 'Tool', {
            taken,
            declaredRoots,
            maxDepth,
            shareObject,
          }),
        })),
      };
    },
    (round) => round.tools.flatMap(({ declarations }) => [...declarations.types, declarations.method]),
    // A tool's root names are only reserved: a shared type may take one its schema never declares.
    (round) => ({
      has: (name) => round.taken.has(name) && (!rootNames.has(name) || round.declaredRoots.has(name)),
      add: (name) => round.taken.add(name),
    }),
  );
  const toolParts = rendering.value.tools.map(
    ({ name, declarations }): SdkToolPart => ({
      name,
      types: declarations.types.map(rendering.resolve),
      member: rendering.resolve([...declarations.notes.map((line) => `  ${line}`), declarations.method].join('\n')),
      result: rendering.resolve(declarations.result),
    }),
  );

  const types = [...rendering.declarations.map((shared) => shared.text), ...toolParts.flatMap((tool) => tool.types)];
  const methods = toolParts.map((tool) => tool.member);
  let deferredText = '';
  let unlisted = 0;
  if (deferred.length > 0) {
    const listing = deferredListing(deferred, resolveBudget(options));
    unlisted = listing.unlisted;
    const lines = [deferredHeading(deferred.length), ...listing.lines];
    if (unlisted > 0)
      lines.push(`  // …and ${unlisted} more deferred tools, not listed here: find them with tools.$search.`);
    lines.push(...DEFERRED_BUILTINS);
    types.push(DEFERRED_TYPE);
    methods.push(...lines);
    deferredText = [DEFERRED_TYPE, ...lines].join('\n');
  }
  const quoted = sorted.some((tool) => propertyKey(tool.name) !== tool.name);
  const head = quoted ? `${QUOTED_NAMES_NOTE}\n${SDK_PREAMBLE}` : SDK_PREAMBLE;
  const preamble = options.sessions === true ? `${head}\n${SESSION_PREAMBLE}` : head;
  const members = methods.length === 0 ? '{}' : `{\n${methods.join('\n')}\n}`;
  // Unlisted deferred tools are still callable: any other name is a loosely typed tool.
  const tail = `declare const tools: ${members}${unlisted > 0 ? ' & { readonly [name: string]: Deferred }' : ''};`;
  return {
    preamble,
    shared: rendering.declarations,
    tools: toolParts,
    deferred: deferredText,
    text: `${[preamble, ...types, tail].join('\n')}\n`,
  };
}
