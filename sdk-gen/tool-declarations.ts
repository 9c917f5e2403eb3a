import { allocateDefinitionName } from './allocate-type-names.ts';
import { closedArgsRoot } from './closed-args-root.ts';
import { constraintTags } from './constraint-tags.ts';
import { docComment } from './doc-comment.ts';
import { oneLine } from './one-line.ts';
import { propertyKey } from './property-key.ts';
import { schemaToType, type TypeContext } from './schema-to-type.ts';
import type { ToolSchema } from './tool-schema.ts';

// A note explains; it need not quote a whole compiler message.
const MAX_NOTE_LENGTH = 160;

/** The declarations of one loaded tool: its types (named `$ref` targets included) and its method line. */
export interface ToolDeclarations {
  /** `type …Args = …;`, `type …Result = …;`, then one `type` per referenced schema; notes first. */
  readonly types: readonly string[];
  /** The member of `declare const tools`, indented, with its doc comment. */
  readonly method: string;
}

/**
 * Types one schema document (the parameters or the output schema) as `name`. Every
 * local `$ref` target met inside a container becomes one named type, declared after
 * it (a recursive schema gives a recursive type); `#` is `name` itself.
 */
function documentTypes(
  document: unknown,
  rendered: unknown,
  name: string,
  base: string,
  taken: Set<string>,
  maxDepth: number,
  notes: string[],
): string[] {
  const names = new Map<object, string>();
  if (typeof document === 'object' && document !== null) names.set(document, name);
  const queue: Array<{ target: object; name: string }> = [];
  const context: TypeContext = {
    root: document,
    notes,
    nameFor(target, pointer) {
      let named = names.get(target);
      if (named === undefined) {
        named = allocateDefinitionName(base, pointer, taken);
        names.set(target, named);
        queue.push({ target, name: named });
      }
      return named;
    },
  };
  const out = [`type ${name} = ${schemaToType(rendered, maxDepth, context)};`];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const description = (next.target as { description?: unknown }).description;
    const doc = docComment(typeof description === 'string' ? description : '', constraintTags(next.target));
    out.push(`${doc}type ${next.name} = ${schemaToType(next.target, maxDepth, context)};`);
  }
  return out;
}

/** A tool's declarations, with type names from `base` (`SearchOrders` → `SearchOrdersArgs`). */
export function toolDeclarations(
  tool: ToolSchema,
  base: string,
  taken: Set<string>,
  maxDepth: number,
): ToolDeclarations {
  const notes: string[] = [];
  const types = documentTypes(
    tool.parameters,
    closedArgsRoot(tool.parameters),
    `${base}Args`,
    base,
    taken,
    maxDepth,
    notes,
  );
  let result = 'JsonValue';
  if (tool.outputSchema !== undefined) {
    result = `${base}Result`;
    types.push(...documentTypes(tool.outputSchema, tool.outputSchema, result, base, taken, maxDepth, notes));
  }
  for (const line of tool.notes ?? []) if (!notes.includes(line)) notes.push(line);
  // A line comment per note: it cannot break out of anything, and it sits beside the types it explains.
  const noteLines = notes.map((line) => {
    const text = oneLine(line);
    return `// ${propertyKey(tool.name)}: ${text.length > MAX_NOTE_LENGTH ? `${text.slice(0, MAX_NOTE_LENGTH - 1)}…` : text}`;
  });
  return {
    types: [...noteLines, ...types],
    method: `  ${docComment(tool.description)}${propertyKey(tool.name)}(args: ${base}Args, opts?: CallOptions): Promise<${result}>;`,
  };
}
