import { allocateDefinitionName } from './allocate-type-names.ts';
import { closedArgsRoot } from './closed-args-root.ts';
import { constraintTags } from './constraint-tags.ts';
import { docComment } from './doc-comment.ts';
import { oneLine } from './one-line.ts';
import { propertyKey } from './property-key.ts';
import { resultHint, schemaToType, type TypeContext } from './schema-to-type.ts';
import type { ToolSchema } from './tool-schema.ts';

// A note explains; it need not quote a whole compiler message.
const MAX_NOTE_LENGTH = 160;

/** The declarations of one loaded tool: its `tools` member and what it needs besides the shared types. */
export interface ToolDeclarations {
  /** Line comments above the types: what could not be typed exactly, and the tool's own notes. */
  readonly notes: readonly string[];
  /** One `type` per local `$ref` target (and the root, when a schema refers to itself). */
  readonly types: readonly string[];
  /** The argument type as written in the member. */
  readonly args: string;
  /** The result type as written in the member; `JsonValue` when the output schema says nothing. */
  readonly result: string;
  /** The member of `declare const tools`, indented, with its doc comment. */
  readonly method: string;
}

/** Hooks shared by every tool of one SDK. */
export interface DeclarationContext {
  /** Every name a `$ref` type must avoid: declared ones and each tool's root names (`XArgs`, `XResult`). */
  readonly taken: Set<string>;
  /** Root names actually declared (a schema that refers to itself), added as they are. */
  readonly declaredRoots: Set<string>;
  readonly maxDepth: number;
  readonly shareObject?: TypeContext['shareObject'];
}

/**
 * Types one schema document (the parameters or the output schema). The root is written
 * in place; every local `$ref` target met inside a container becomes one named type (a
 * recursive schema gives a recursive type; `#` names the root `rootName`).
 */
function documentTypes(
  document: unknown,
  rendered: unknown,
  rootName: string,
  hint: string,
  base: string,
  shared: DeclarationContext,
  notes: string[],
): { text: string; types: string[] } {
  const names = new Map<object, string>();
  const queue: Array<{ target: object; name: string }> = [];
  const context: TypeContext = {
    root: document,
    notes,
    ...(shared.shareObject === undefined ? {} : { shareObject: shared.shareObject }),
    nameFor(target, pointer) {
      let named = names.get(target);
      if (named === undefined) {
        named = target === document ? rootName : allocateDefinitionName(base, pointer, shared.taken);
        if (target === document) shared.declaredRoots.add(rootName);
        names.set(target, named);
        queue.push({ target, name: named });
      }
      return named;
    },
  };
  const text = schemaToType(rendered, shared.maxDepth, { ...context, rootHint: hint });
  const types: string[] = [];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const isRoot = next.target === document;
    const description = (next.target as { description?: unknown }).description;
    // The root's description is the tool's, already on its member.
    const doc = isRoot
      ? ''
      : docComment(typeof description === 'string' ? description : '', constraintTags(next.target));
    const source = isRoot ? rendered : next.target;
    types.push(
      `${doc}type ${next.name} = ${schemaToType(source, shared.maxDepth, { ...context, rootHint: next.name })};`,
    );
  }
  return { text: typeof document === 'object' && document !== null && names.has(document) ? rootName : text, types };
}

/** A tool's declarations, with type names from `base` (`SearchOrders` → `SearchOrdersNode` for a `$ref`). */
export function toolDeclarations(tool: ToolSchema, base: string, shared: DeclarationContext): ToolDeclarations {
  const notes: string[] = [];
  const args = documentTypes(
    tool.parameters,
    closedArgsRoot(tool.parameters),
    `${base}Args`,
    `${base}Args`,
    base,
    shared,
    notes,
  );
  const types = [...args.types];
  let result = 'JsonValue';
  if (tool.outputSchema !== undefined) {
    const output = documentTypes(
      tool.outputSchema,
      tool.outputSchema,
      `${base}Result`,
      resultHint(tool.name, tool.outputSchema),
      base,
      shared,
      notes,
    );
    result = output.text;
    types.push(...output.types);
  }
  for (const line of tool.notes ?? []) if (!notes.includes(line)) notes.push(line);
  // A line comment per note: it cannot break out of anything, and it sits beside the types it explains.
  const noteLines = notes.map((line) => {
    const text = oneLine(line);
    return `// ${propertyKey(tool.name)}: ${text.length > MAX_NOTE_LENGTH ? `${text.slice(0, MAX_NOTE_LENGTH - 1)}…` : text}`;
  });
  // No declared argument (an open root): `{}`, what `Record<string, JsonValue>` says here, shorter.
  const argsText = args.text === 'Record<string, JsonValue>' ? '{}' : args.text;
  const signature = result === 'JsonValue' ? argsText : `${argsText}, ${result}`;
  return {
    notes: noteLines,
    types,
    args: argsText,
    result,
    method: `  ${docComment(tool.description)}${propertyKey(tool.name)}: Tool<${signature}>;`,
  };
}
