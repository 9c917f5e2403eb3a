import { constraintTags } from './constraint-tags.ts';
import { docComment } from './doc-comment.ts';
import { oneLine } from './one-line.ts';
import { propertyKey } from './property-key.ts';
import { documentedType } from './shared-types.ts';
import { stringLiteral } from './string-literal.ts';

/**
 * A rendered type and how tightly it binds, so that callers know where
 * parentheses are needed (`(A | B)[]`, `A & (B | C)`). A union keeps its
 * members so that nested unions flatten and repeated members collapse.
 */
type Rendered =
  | { readonly kind: 'atom' | 'intersection'; readonly text: string; readonly openBody?: string }
  | { readonly kind: 'union'; readonly text: string; readonly members: readonly string[] };

const atom = (text: string): Rendered => ({ kind: 'atom', text });
const JSON_VALUE = atom('JsonValue');
const UNKNOWN = atom('unknown');
const NEVER = atom('never');
const NULL = atom('null');
const OPEN_INDEX = 'Record<string, JsonValue>';

// Dynamic references depend on the evaluation path; they are typed JsonValue, with a note.
const DYNAMIC_REFERENCE_KEYWORDS = ['$dynamicRef', '$recursiveRef'];
// Keywords that make a schema without `type` an object or an array schema. Not
// `required` alone: `anyOf: [{ required: ['a'] }, { required: ['b'] }]` refines an
// object described elsewhere and should add nothing to its type.
const OBJECT_KEYWORDS = ['properties', 'additionalProperties', 'patternProperties'];
const ARRAY_KEYWORDS = ['items', 'prefixItems'];

type Schema = { readonly [key: string]: unknown };

/**
 * How local references are typed. Inside an object property, array item or index
 * signature a reference becomes a named type (`nameFor`), declared once by the caller,
 * so recursive schemas give recursive types. Elsewhere (the top of a declaration, a
 * union or intersection member) TypeScript forbids a type that names itself, so the
 * target is written in place.
 */
export interface TypeContext {
  /** The document `#` refers to. */
  readonly root: unknown;
  /** The type name for a reference target; undefined writes targets in place. */
  readonly nameFor?: (target: object, pointer: string) => string;
  /** One line per part that could not be typed exactly (typed more loosely instead). */
  readonly notes: string[];
  /**
   * Offered every object type as it is rendered, with a name hint (`Address` for a
   * `defaultAddress` property, `Order` for the items of `orders`): the text to write in
   * its place (a shared type's name), or undefined to keep it. How one declaration
   * serves every structurally identical type.
   */
  readonly shareObject?: (text: string, hint: string) => string | undefined;
  /** The name hint of the root (a tool's `Order` for its result); properties refine it. */
  readonly rootHint?: string;
}

interface Walk {
  readonly maxDepth: number;
  /** Schema objects on the current path: meeting one again is a cycle. */
  readonly ancestors: Set<object>;
  readonly context: TypeContext;
  /** Where the schema being rendered sits, for naming shared types. */
  hint: string;
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
  // Open objects say `& Record<string, JsonValue>` once, at the end.
  const open = parts.some((part) => part.kind !== 'union' && part.openBody !== undefined);
  const texts = parts.map((part) => {
    if (part.kind !== 'union' && part.openBody !== undefined) return part.openBody;
    return part.kind === 'union' ? `(${part.text})` : part.text;
  });
  if (open) texts.push(OPEN_INDEX);
  return { kind: 'intersection', text: [...new Set(texts)].join(' & ') };
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

/** `work` with the walk's name hint set to `hint`, restored after. */
function withHint<T>(walk: Walk, hint: string, work: () => T): T {
  const outer = walk.hint;
  walk.hint = hint;
  try {
    return work();
  } finally {
    walk.hint = outer;
  }
}

/** A type name from a property key: its last word, capitalized (`defaultAddress` → `Address`). */
export function hintOf(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '' && !/^[0-9]/.test(word));
  const last = words.at(-1) ?? '';
  return last === '' ? 'Type' : last.charAt(0).toUpperCase() + last.slice(1);
}

/** A type name from a whole property key (`order_id` → `OrderId`), for a documented type it names. */
function typeName(key: string): string {
  const words = key.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  const name = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
  return name === '' || /^[0-9]/.test(name) ? hintOf(key) : name;
}

// Longer titles are sentences, not names.
const MAX_TITLE_LENGTH = 40;

/** An object schema's `title` as a type name (`"sales order"` → `SalesOrder`), when it makes one. */
function titleHint(schema: Schema): string | undefined {
  const title = own(schema, 'title');
  if (typeof title !== 'string' || title.length > MAX_TITLE_LENGTH) return undefined;
  const name = typeName(title);
  return /^[A-Za-z][A-Za-z0-9]*$/.test(name) ? name : undefined;
}

/**
 * The name hint of a tool's result: its schema's `title`; else what its first property
 * identifies, when that is an id (`{ order_id, user_id, … }` is an `Order`); else the
 * tool name's last word (`get_shipment` → `Shipment`).
 */
export function resultHint(toolName: string, schema: unknown): string {
  if (isRecord(schema)) {
    const title = titleHint(schema);
    if (title !== undefined) return title;
    const properties = own(schema, 'properties');
    const first = isRecord(properties) ? Object.keys(properties)[0] : undefined;
    // `order_id`, `orderId`, `orderID`; not `paid`.
    const identified = first === undefined ? null : /^([A-Za-z][A-Za-z0-9]*?)(?:_id|Id|ID)$/.exec(first);
    if (identified?.[1] !== undefined) return typeName(identified[1]);
  }
  return hintOf(toolName);
}

/** An English plural's singular, for the items of an array (`Orders` → `Order`, `Entries` → `Entry`). */
export function singular(word: string): string {
  if (word.length <= 3) return word;
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (/[^siu]s$/.test(word)) return word.slice(0, -1);
  return word;
}

/** An object type, or the shared type's name standing for it (`TypeContext.shareObject`). */
function shared(type: Rendered, walk: Walk, schema: Schema): Rendered {
  const name = walk.context.shareObject?.(type.text, titleHint(schema) ?? walk.hint);
  return name === undefined ? type : atom(name);
}

function renderArray(schema: Schema, depth: number, walk: Walk): Rendered {
  const items = own(schema, 'items');
  // Tuples (prefixItems, draft-07 array items) are typed loosely as JSON arrays.
  if (Object.hasOwn(schema, 'prefixItems') || Array.isArray(items)) return arrayOf(JSON_VALUE);
  if (items === undefined) return arrayOf(JSON_VALUE);
  return arrayOf(withHint(walk, singular(walk.hint), () => render(items, depth + 1, walk, false)));
}

/** Members of TypeScript's `Object` interface, which every object type inherits. */
const OBJECT_MEMBERS = new Set([
  'constructor',
  'toString',
  'toLocaleString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
]);

/** The doc comment of a property: its description, then its constraints (and its items'). */
function propertyDoc(schema: unknown): string {
  if (!isRecord(schema)) return '';
  const description = own(schema, 'description');
  const items = own(schema, 'items');
  const tags = [constraintTags(schema), isRecord(items) ? constraintTags(items, 'items.') : '']
    .filter((t) => t !== '')
    .join(' ');
  return docComment(typeof description === 'string' ? description : '', tags);
}

// `^prefix` with nothing special after it: the keys are `${"prefix"}${string}`.
const LITERAL_PREFIX = /^\^([A-Za-z0-9_-]+)$/;
const LITERAL_PREFIX_OPEN = /^\^([A-Za-z0-9_-]+)(\.\*)?$/;

/**
 * The key type and value type of an object's index signature, when names are
 * constrained (`patternProperties`, `propertyNames`) or values typed
 * (`additionalProperties: S`). Undefined when the object has no such keywords.
 */
function indexSignature(
  schema: Schema,
  depth: number,
  walk: Walk,
): { key: string; value: Rendered; partial: boolean } | undefined {
  const patterns = own(schema, 'patternProperties');
  const names = own(schema, 'propertyNames');
  const additional = own(schema, 'additionalProperties');
  const typedAdditional = isRecord(additional);
  if (!isRecord(patterns) && names === undefined && !typedAdditional) return undefined;
  const values: Rendered[] = [];
  const keys: string[] = [];
  let anyKey = additional !== false;
  if (isRecord(patterns)) {
    for (const [pattern, valueSchema] of Object.entries(patterns)) {
      values.push(withHint(walk, singular(walk.hint), () => render(valueSchema, depth + 1, walk, false)));
      const prefix = LITERAL_PREFIX.exec(pattern) ?? LITERAL_PREFIX_OPEN.exec(pattern);
      if (prefix?.[1] !== undefined) keys.push(`\`${prefix[1]}\${string}\``);
      else anyKey = true;
    }
  }
  if (additional === undefined || additional === true) values.push(JSON_VALUE);
  // A map's values are named like an array's items: `variants` holds `Variant`s.
  else if (typedAdditional)
    values.push(withHint(walk, singular(walk.hint), () => render(additional, depth + 1, walk, false)));
  let key = anyKey || keys.length === 0 ? 'string' : [...new Set(keys)].join(' | ');
  let partial = false;
  // propertyNames: { enum } or { const } names every key: a mapped type over them.
  if (isRecord(names)) {
    const listed = own(names, 'enum') ?? (Object.hasOwn(names, 'const') ? [own(names, 'const')] : undefined);
    if (Array.isArray(listed) && listed.length > 0 && listed.every((name) => typeof name === 'string')) {
      key = union(listed.map(literal)).text;
      partial = true;
    }
  }
  return { key, value: values.length === 0 ? NEVER : union(values), partial };
}

function renderObject(schema: Schema, depth: number, walk: Walk): Rendered {
  const properties = own(schema, 'properties') ?? {};
  const required = own(schema, 'required') ?? [];
  const additional = own(schema, 'additionalProperties');
  if (!isRecord(properties) || !Array.isArray(required)) return UNKNOWN;
  if (additional !== undefined && typeof additional !== 'boolean' && !isRecord(additional)) return UNKNOWN;

  const requiredNames = new Set(required.filter((name): name is string => typeof name === 'string'));
  const lines: string[] = [];
  for (const [name, propertySchema] of Object.entries(properties)) {
    const type = withHint(walk, hintOf(name), () => render(propertySchema, depth + 1, walk, false));
    const doc = propertyDoc(propertySchema);
    const optional = !requiredNames.has(name);
    // TypeScript checks an omitted optional property against the member every object
    // inherits (`{}` has a `toString(): string`), so `{}` would not fit `{ toString?: string }`.
    // Admitting the inherited member's type keeps omission legal for these names.
    const inherited = optional && OBJECT_MEMBERS.has(name) ? ` | Object[${JSON.stringify(name)}]` : '';
    // The same documented type in several places is declared once, its doc comment with it.
    const named = doc === '' ? undefined : walk.context.shareObject?.(documentedType(doc, type.text), typeName(name));
    const member = named === undefined ? `${doc}${propertyKey(name)}` : propertyKey(name);
    lines.push(`${member}${optional ? '?' : ''}: ${named ?? type.text}${inherited};`);
  }
  // A required name without a property schema may hold any JSON value.
  for (const name of requiredNames) {
    if (!Object.hasOwn(properties, name)) lines.push(`${propertyKey(name)}: JsonValue;`);
  }

  const index = indexSignature(schema, depth, walk);
  if (lines.length === 0) {
    if (index === undefined) return atom(additional === false ? 'Record<string, never>' : OPEN_INDEX);
    if (index.partial) return atom(`{ [key in ${index.key}]?: ${index.value.text} }`);
    if (index.key === 'string' && isJsonValue(index.value)) return atom(OPEN_INDEX);
    // `Record<string, T>` when T names nothing: short, and the form models know best.
    if (index.key === 'string' && !/[A-Z]/.test(index.value.text.replace(/JsonValue/g, '')))
      return atom(`Record<string, ${index.value.text}>`);
    return atom(`{ [key: ${index.key}]: ${index.value.text} }`);
  }
  // One line, documented members too (`{ /** ISO date *\/ at: string; total: number }`):
  // a line break and its indentation cost a token each and tell the model nothing.
  const body = `{ ${lines.join(' ').slice(0, -1)} }`;
  // Declared properties would clash with a typed index signature (`{ a: string } &
  // Record<string, number>` makes `a` never), so an open object's index is JsonValue.
  const closed = additional === false && !Object.hasOwn(schema, 'patternProperties');
  return closed ? atom(body) : { kind: 'intersection', text: `${body} & ${OPEN_INDEX}`, openBody: body };
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
      return shared(renderObject(schema, depth, walk), walk, schema);
    default:
      return UNKNOWN;
  }
}

/** The type given by `type` (or implied by object/array keywords); undefined if none. */
function renderOwnType(schema: Schema, depth: number, walk: Walk): Rendered | undefined {
  const type = own(schema, 'type');
  if (type === undefined) {
    if (hasAny(schema, OBJECT_KEYWORDS)) return shared(renderObject(schema, depth, walk), walk, schema);
    if (hasAny(schema, ARRAY_KEYWORDS)) return renderArray(schema, depth, walk);
    return undefined;
  }
  if (Array.isArray(type)) {
    if (type.length === 0) return UNKNOWN;
    return union(type.map((name) => renderTypeName(name, schema, depth, walk)));
  }
  return renderTypeName(type, schema, depth, walk);
}

function renderMembers(list: unknown, depth: number, walk: Walk, bare: boolean): Rendered[] | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return list.map((member) => render(member, depth + 1, walk, bare));
}

/** Decodes a JSON pointer fragment (`#/$defs/a~1b`); undefined when it does not resolve. */
function resolvePointer(root: unknown, fragment: string): unknown {
  let decoded: string;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
  if (decoded === '') return root;
  if (!decoded.startsWith('/')) return findAnchor(root, decoded);
  let node: unknown = root;
  for (const raw of decoded.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The subschema declaring `$anchor: name` (explicit stack; every node visited once). */
function findAnchor(root: unknown, name: string): unknown {
  const stack: unknown[] = [root];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node) && Object.hasOwn(node, '$anchor') && (node as Record<string, unknown>).$anchor === name)
      return node;
    stack.push(...Object.values(node));
  }
  return undefined;
}

function note(walk: Walk, text: string): void {
  const line = oneLine(text);
  if (!walk.context.notes.includes(line)) walk.context.notes.push(line);
}

/** A local reference: a named type inside containers, written in place at the top. */
function renderReference(ref: unknown, depth: number, walk: Walk, bare: boolean): Rendered {
  if (typeof ref !== 'string') return UNKNOWN;
  const target = ref.startsWith('#') ? resolvePointer(walk.context.root, ref.slice(1)) : undefined;
  if (target === true || target === false) return target ? JSON_VALUE : NEVER;
  if (!isRecord(target)) {
    note(walk, `$ref ${JSON.stringify(ref).slice(0, 80)} is not followed: typed JsonValue`);
    return JSON_VALUE;
  }
  const { nameFor } = walk.context;
  if (!bare && nameFor !== undefined) return atom(nameFor(target, ref));
  return render(target, depth + 1, walk, bare);
}

function renderKeywords(schema: Schema, depth: number, walk: Walk, bare: boolean): Rendered {
  for (const keyword of DYNAMIC_REFERENCE_KEYWORDS) {
    if (Object.hasOwn(schema, keyword)) {
      note(walk, `${keyword} is not followed: typed JsonValue`);
      return JSON_VALUE;
    }
  }
  if (Object.hasOwn(schema, 'const')) return literal(schema['const']);
  if (Object.hasOwn(schema, 'enum')) {
    const values = schema['enum'];
    return Array.isArray(values) ? union(values.map(literal)) : UNKNOWN;
  }

  // The value must satisfy every one of these: the reference, the own type, each union, each allOf member.
  const constraints: Rendered[] = [];
  if (Object.hasOwn(schema, '$ref')) constraints.push(renderReference(schema['$ref'], depth, walk, bare));
  const ownType = renderOwnType(schema, depth, walk);
  if (ownType !== undefined) constraints.push(ownType);
  for (const keyword of ['anyOf', 'oneOf']) {
    if (!Object.hasOwn(schema, keyword)) continue;
    const members = renderMembers(schema[keyword], depth, walk, bare);
    constraints.push(members === undefined ? UNKNOWN : union(members));
  }
  if (Object.hasOwn(schema, 'allOf')) {
    constraints.push(...(renderMembers(schema['allOf'], depth, walk, bare) ?? [UNKNOWN]));
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

function render(schema: unknown, depth: number, walk: Walk, bare: boolean): Rendered {
  if (schema === true) return JSON_VALUE;
  if (schema === false) return NEVER;
  if (!isRecord(schema)) return UNKNOWN;
  // Checked before recursing, so the call stack is bounded by maxDepth, not by the schema.
  if (depth > walk.maxDepth) return JSON_VALUE;
  if (walk.ancestors.has(schema)) return UNKNOWN;
  walk.ancestors.add(schema);
  try {
    return withNullable(schema, renderKeywords(schema, depth, walk, bare));
  } finally {
    walk.ancestors.delete(schema);
  }
}

/**
 * The TypeScript type text for a JSON Schema: scalars map directly
 * (`integer` → `number`), `enum`/`const` → literal unions, `anyOf`/`oneOf` →
 * unions (discriminated when their members have `const` properties), `allOf` →
 * intersection, `type: [..., 'null']` and `nullable: true` → `| null`, arrays with or
 * without `items`, required vs optional (`?`), open objects → `& Record<string,
 * JsonValue>` (closed empty → `Record<string, never>`), `patternProperties` /
 * `propertyNames` / typed `additionalProperties` → index signatures (`^prefix`
 * patterns as template-literal keys, `propertyNames.enum` as a mapped type), local
 * `$ref` → a named type from `context.nameFor` inside containers, the target in place
 * elsewhere (without a context, always in place); no type → `JsonValue`; unknown types
 * → `unknown`. A reference that cannot be followed (not local, unresolved, dynamic) is
 * `JsonValue`, with a line in `context.notes`. Property doc comments carry the
 * description and the constraints (`@minimum 1 @maxLength 80 @format email @default 20
 * @pattern "…"`). Subschemas deeper than `maxDepth` become `JsonValue`; a schema met
 * again on its own path becomes `unknown`. The text is one line: object members,
 * documented or not, are separated by `; `.
 */
export function schemaToType(
  schema: unknown,
  maxDepth: number,
  context: TypeContext = { root: schema, notes: [] },
): string {
  return render(schema, 0, { maxDepth, ancestors: new Set(), context, hint: context.rootHint ?? 'Type' }, true).text;
}
