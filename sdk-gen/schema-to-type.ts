import { docComment } from './doc-comment.ts';
import { propertyKey } from './property-key.ts';
import { stringLiteral } from './string-literal.ts';

/**
 * A rendered type and how tightly it binds, so that callers know where
 * parentheses are needed (`(A | B)[]`, `A & (B | C)`). A union keeps its
 * members so that nested unions flatten and repeated members collapse.
 */
type Rendered =
  | { readonly kind: 'atom' | 'intersection'; readonly text: string }
  | { readonly kind: 'union'; readonly text: string; readonly members: readonly string[] };

const atom = (text: string): Rendered => ({ kind: 'atom', text });
const JSON_VALUE = atom('JsonValue');
const UNKNOWN = atom('unknown');
const NEVER = atom('never');
const NULL = atom('null');
const OPEN_INDEX = 'Record<string, JsonValue>';

// Keywords that point elsewhere; following them is out of scope, so the type is unknown.
const REFERENCE_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'];
// Keywords that make a schema without `type` an object or an array schema. Not
// `required` alone: `anyOf: [{ required: ['a'] }, { required: ['b'] }]` refines an
// object described elsewhere and should add nothing to its type.
const OBJECT_KEYWORDS = ['properties', 'additionalProperties', 'patternProperties'];
const ARRAY_KEYWORDS = ['items', 'prefixItems'];

type Schema = { readonly [key: string]: unknown };

interface Walk {
  readonly maxDepth: number;
  /** Schema objects on the current path: meeting one again is a cycle. */
  readonly ancestors: Set<object>;
}

function isRecord(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Own properties only: an inherited `type` or `properties` is not part of the schema.
function own(schema: Schema, keyword: string): unknown {
  return Object.hasOwn(schema, keyword) ? schema[keyword] : undefined;
}

function hasAny(schema: Schema, keywords: readonly string[]): boolean {
  return keywords.some((keyword) => Object.hasOwn(schema, keyword));
}

const isJsonValue = (type: Rendered): boolean => type.text === 'JsonValue';
const isUnknown = (type: Rendered): boolean => type.text === 'unknown';

function union(members: readonly Rendered[]): Rendered {
  if (members.some(isUnknown)) return UNKNOWN;
  // JsonValue absorbs every other JSON member: say it once, briefly.
  if (members.some(isJsonValue)) return JSON_VALUE;
  const flat: Rendered[] = [];
  for (const member of members) {
    const parts = member.kind === 'union' ? member.members.map(atom) : [member];
    for (const part of parts) {
      if (part.text !== 'never' && !flat.some((seen) => seen.text === part.text)) flat.push(part);
    }
  }
  const [only] = flat;
  if (only === undefined) return NEVER;
  if (flat.length === 1) return only;
  const texts = flat.map((part) => part.text);
  return { kind: 'union', text: texts.join(' | '), members: texts };
}

function intersection(parts: readonly Rendered[]): Rendered {
  const first = parts[0];
  if (parts.length === 1 && first !== undefined) return first;
  const text = parts.map((part) => (part.kind === 'union' ? `(${part.text})` : part.text)).join(' & ');
  return { kind: 'intersection', text };
}

function literal(value: unknown): Rendered {
  if (value === null) return NULL;
  if (typeof value === 'string') return atom(stringLiteral(value));
  if (typeof value === 'boolean') return atom(String(value));
  if (typeof value === 'number') return Number.isFinite(value) ? atom(String(value)) : UNKNOWN;
  // An object or array constant is a JSON value; its exact shape is not worth the tokens.
  if (typeof value === 'object') return JSON_VALUE;
  return UNKNOWN;
}

function arrayOf(item: Rendered): Rendered {
  return atom(item.kind === 'atom' ? `${item.text}[]` : `(${item.text})[]`);
}

// Nested multi-line text moves one level in; comments and string literals never
// contain a raw line break, so every newline here is layout.
function indent(text: string): string {
  return text.replace(/\n/g, '\n  ');
}

function renderArray(schema: Schema, depth: number, walk: Walk): Rendered {
  const items = own(schema, 'items');
  // Tuples (prefixItems, draft-07 array items) are typed loosely as JSON arrays.
  if (Object.hasOwn(schema, 'prefixItems') || Array.isArray(items)) return arrayOf(JSON_VALUE);
  if (items === undefined) return arrayOf(JSON_VALUE);
  return arrayOf(render(items, depth + 1, walk));
}

/** Members of TypeScript's `Object` interface, which every object type inherits. */
const OBJECT_MEMBERS = new Set(['constructor', 'toString', 'toLocaleString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable']);

function renderObject(schema: Schema, depth: number, walk: Walk): Rendered {
  const properties = own(schema, 'properties') ?? {};
  const required = own(schema, 'required') ?? [];
  const additional = own(schema, 'additionalProperties');
  if (!isRecord(properties) || !Array.isArray(required)) return UNKNOWN;
  if (additional !== undefined && typeof additional !== 'boolean' && !isRecord(additional)) return UNKNOWN;

  const requiredNames = new Set(required.filter((name): name is string => typeof name === 'string'));
  const lines: string[] = [];
  let multiLine = false;
  for (const [name, propertySchema] of Object.entries(properties)) {
    const type = render(propertySchema, depth + 1, walk);
    const description = isRecord(propertySchema) ? own(propertySchema, 'description') : undefined;
    const doc = typeof description === 'string' ? docComment(description) : '';
    if (doc !== '' || type.text.includes('\n')) multiLine = true;
    const optional = !requiredNames.has(name);
    // TypeScript checks an omitted optional property against the member every object
    // inherits (`{}` has a `toString(): string`), so `{}` would not fit `{ toString?: string }`.
    // Admitting the inherited member's type keeps omission legal for these names.
    const inherited = optional && OBJECT_MEMBERS.has(name) ? ` | Object[${JSON.stringify(name)}]` : '';
    lines.push(`${doc}${propertyKey(name)}${optional ? '?' : ''}: ${type.text}${inherited};`);
  }
  // A required name without a property schema may hold any JSON value.
  for (const name of requiredNames) {
    if (!Object.hasOwn(properties, name)) lines.push(`${propertyKey(name)}: JsonValue;`);
  }

  // Absent additionalProperties means open, as in JSON Schema; patternProperties
  // admits names we do not model, so it opens the object too.
  const closed = additional === false && !Object.hasOwn(schema, 'patternProperties');
  if (lines.length === 0) {
    if (closed) return atom('Record<string, never>');
    if (isRecord(additional) && !Object.hasOwn(schema, 'patternProperties')) {
      return atom(`Record<string, ${render(additional, depth + 1, walk).text}>`);
    }
    return atom(OPEN_INDEX);
  }
  // One line when nothing is documented: `{ id: string; total: number }`.
  const body = multiLine
    ? `{\n  ${lines.map(indent).join('\n  ')}\n}`
    : `{ ${lines.join(' ').slice(0, -1)} }`;
  // Declared properties would clash with a typed index signature (`{ a: string } &
  // Record<string, number>` makes `a` never), so an open object's index is JsonValue.
  return closed ? atom(body) : { kind: 'intersection', text: `${body} & ${OPEN_INDEX}` };
}

function renderTypeName(type: unknown, schema: Schema, depth: number, walk: Walk): Rendered {
  switch (type) {
    case 'string':
      return atom('string');
    case 'number':
    case 'integer':
      return atom('number');
    case 'boolean':
      return atom('boolean');
    case 'null':
      return NULL;
    case 'array':
      return renderArray(schema, depth, walk);
    case 'object':
      return renderObject(schema, depth, walk);
    default:
      return UNKNOWN;
  }
}

/** The type given by `type` (or implied by object/array keywords); undefined if none. */
function renderOwnType(schema: Schema, depth: number, walk: Walk): Rendered | undefined {
  const type = own(schema, 'type');
  if (type === undefined) {
    if (hasAny(schema, OBJECT_KEYWORDS)) return renderObject(schema, depth, walk);
    if (hasAny(schema, ARRAY_KEYWORDS)) return renderArray(schema, depth, walk);
    return undefined;
  }
  if (Array.isArray(type)) {
    if (type.length === 0) return UNKNOWN;
    return union(type.map((name) => renderTypeName(name, schema, depth, walk)));
  }
  return renderTypeName(type, schema, depth, walk);
}

function renderMembers(list: unknown, depth: number, walk: Walk): Rendered[] | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return list.map((member) => render(member, depth + 1, walk));
}

function renderKeywords(schema: Schema, depth: number, walk: Walk): Rendered {
  if (hasAny(schema, REFERENCE_KEYWORDS)) return UNKNOWN;
  if (Object.hasOwn(schema, 'const')) return literal(schema['const']);
  if (Object.hasOwn(schema, 'enum')) {
    const values = schema['enum'];
    return Array.isArray(values) ? union(values.map(literal)) : UNKNOWN;
  }

  // The value must satisfy every one of these: the own type, each union, each allOf member.
  const constraints: Rendered[] = [];
  const ownType = renderOwnType(schema, depth, walk);
  if (ownType !== undefined) constraints.push(ownType);
  for (const keyword of ['anyOf', 'oneOf']) {
    if (!Object.hasOwn(schema, keyword)) continue;
    const members = renderMembers(schema[keyword], depth, walk);
    constraints.push(members === undefined ? UNKNOWN : union(members));
  }
  if (Object.hasOwn(schema, 'allOf')) {
    constraints.push(...(renderMembers(schema['allOf'], depth, walk) ?? [UNKNOWN]));
  }

  // JsonValue and unknown add nothing next to a real constraint (`string & JsonValue`
  // is `string`); alone, they are the answer.
  const informative = constraints.filter((part) => !isJsonValue(part) && !isUnknown(part));
  if (informative.length > 0) return intersection(informative);
  return constraints.some(isUnknown) ? UNKNOWN : JSON_VALUE;
}

function withNullable(schema: Schema, type: Rendered): Rendered {
  if (own(schema, 'nullable') !== true) return type;
  if (isJsonValue(type) || isUnknown(type)) return type;
  return union([type, NULL]);
}

function render(schema: unknown, depth: number, walk: Walk): Rendered {
  if (schema === true) return JSON_VALUE;
  if (schema === false) return NEVER;
  if (!isRecord(schema)) return UNKNOWN;
  // Checked before recursing, so the call stack is bounded by maxDepth, not by the schema.
  if (depth > walk.maxDepth) return JSON_VALUE;
  if (walk.ancestors.has(schema)) return UNKNOWN;
  walk.ancestors.add(schema);
  try {
    return withNullable(schema, renderKeywords(schema, depth, walk));
  } finally {
    walk.ancestors.delete(schema);
  }
}

/**
 * The TypeScript type text for a JSON Schema (SPEC §5): scalars map directly
 * (`integer` → `number`), `enum`/`const` → literal unions, `anyOf`/`oneOf` →
 * unions, `allOf` → intersection, `type: [..., 'null']` and `nullable: true` →
 * `| null`, arrays with or without `items`, required vs optional (`?`), open objects
 * → `& Record<string, JsonValue>` (closed empty → `Record<string, never>`), no type
 * → `JsonValue`, `$ref` and unknown types → `unknown`. Subschemas deeper than
 * `maxDepth` become `JsonValue`; a schema met again on its own path becomes `unknown`.
 * Validation-only keywords (`minimum`, `pattern`, `format`, `not`...) are ignored.
 * Multi-line text uses two-space indentation relative to its first line.
 */
export function schemaToType(schema: unknown, maxDepth: number): string {
  return render(schema, 0, { maxDepth, ancestors: new Set() }).text;
}
