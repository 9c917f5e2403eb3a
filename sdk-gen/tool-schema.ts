/** A JSON Schema node: an object of keywords, or `true`/`false`. */
export type JsonSchema = { readonly [key: string]: unknown } | boolean;

/** What sdk-gen needs to know about one tool. */
export interface ToolSchema {
  /** Wire name, any string; the SDK never renames it (`tools["x-y"]` calls `x-y`). */
  readonly name: string;
  readonly description: string;
  /** Argument schema. The root is open: an absent `additionalProperties` allows extra fields. */
  readonly parameters: JsonSchema;
  /** Output schema; absent ⇒ the call resolves to `JsonValue`. */
  readonly outputSchema?: JsonSchema;
  /** Deferred tools are listed by name and summary only, loosely typed (their schemas are not shown). */
  readonly deferLoading?: boolean;
  /** One-line notes shown above the tool's types (e.g. what its schema lost on the way in). */
  readonly notes?: readonly string[];
}

export interface GenerateSdkOptions {
  /**
   * Schema nesting levels rendered as types; deeper subschemas become `JsonValue`.
   * The root schema is level 0, each property, item, union member or
   * additionalProperties schema one level deeper than its parent.
   * @default 16
   */
  readonly maxDepth?: number;
  /**
   * Characters (counted as JSON text, as a provider request carries them) that the
   * deferred tools' one-line listing may take: their summaries shrink to fit, then
   * go; past that, names are left out (still callable, found with `tools.$search`).
   * @default 88000
   */
  readonly deferredBudget?: number;
  /** Sessions are on: the SDK says how `state` carries data to the next program, and declares it. @default false */
  readonly sessions?: boolean;
}
