// JSON Schema → a Python type expression. Objects with properties become TypedDicts,
// declared once for every place with the same fields (named from where they first
// appear: `Order`, `Line`), enums and consts `Literal[...]`, unions `A | B`.
import { pascalCase } from './python-names.ts';
import { constraintText, oneLineText } from './python-doc.ts';
import { pythonTypedDict, type TypedDictField } from './python-typed-dict.ts';

type Schema = { readonly [key: string]: unknown };

/** The TypedDicts declared so far, shared by every tool of one SDK (output types deduplicated). */
export class TypedDictRegistry {
  readonly #byFields = new Map<string, string>();
  readonly #taken: Set<string>;
  /** Declarations in order: a TypedDict comes after the ones its fields use. */
  readonly declarations: string[] = [];

  /** `taken`: names the declarations must not take (tool functions, typing names). */
  constructor(taken: ReadonlySet<string>) {
    this.#taken = new Set(taken);
  }

  /** The name of the TypedDict with these fields: an existing one, or a new one named from `hint`. */
  declare(hint: string, fields: readonly TypedDictField[]): string {
    const key = JSON.stringify(fields);
    const existing = this.#byFields.get(key);
    if (existing !== undefined) return existing;
    let name = pascalCase(hint);
    for (let n = 2; this.#taken.has(name); n++) name = `${pascalCase(hint)}${n}`;
    this.#taken.add(name);
    this.#byFields.set(key, name);
    this.declarations.push(pythonTypedDict(name, fields));
    return name;
  }
}

export interface TypeContext {
  readonly registry: TypedDictRegistry;
  /** The schema `$ref`s resolve in (`#/$defs/X`, `#/definitions/X`). */
  readonly root: unknown;
  readonly maxDepth: number;
}

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON value as a Python literal (for `Literal[...]`), or undefined when it has none. */
export function pythonLiteral(value: unknown): string | undefined {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  // JSON string escapes are valid Python escapes (\uXXXX included).
  if (typeof value === 'string') return JSON.stringify(value);
  return undefined;
}

function union(members: readonly string[]): string {
  const unique = [...new Set(members)];
  if (unique.includes('Any')) return 'Any';
  return unique.length === 0 ? 'Any' : unique.join(' | ');
}

function resolveRef(ref: string, root: unknown): Schema | undefined {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (match === null || !isObject(root)) return undefined;
  const defs = root[match[1]!];
  if (!isObject(defs)) return undefined;
  const target = defs[decodeURIComponent(match[2]!).replace(/~1/g, '/').replace(/~0/g, '~')];
  return isObject(target) || typeof target === 'boolean' ? (target as Schema) : undefined;
}

/**
 * The Python type of a schema. `hint` names a TypedDict made for it; `refs` holds the
 * `$ref`s being expanded (a recursive one becomes `Any`); past `maxDepth` levels, `Any`.
 */
export function pythonType(
  schema: unknown,
  ctx: TypeContext,
  hint: string,
  depth = 0,
  refs: ReadonlySet<string> = new Set(),
): string {
  if (!isObject(schema) || depth > ctx.maxDepth) return 'Any';
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(schema.$ref, ctx.root);
    if (target === undefined || refs.has(schema.$ref)) return 'Any';
    const name = schema.$ref.slice(schema.$ref.lastIndexOf('/') + 1);
    return pythonType(target, ctx, name, depth + 1, new Set([...refs, schema.$ref]));
  }
  if (Array.isArray(schema.enum)) {
    const literals = schema.enum.map(pythonLiteral);
    return literals.every((l) => l !== undefined) && literals.length > 0 ? `Literal[${literals.join(', ')}]` : 'Any';
  }
  if (Object.hasOwn(schema, 'const')) {
    const literal = pythonLiteral(schema.const);
    return literal === undefined ? 'Any' : `Literal[${literal}]`;
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = schema[keyword];
    if (Array.isArray(members) && members.length > 0) {
      return union(members.map((m, i) => pythonType(m, ctx, `${hint}${i + 1}`, depth + 1, refs)));
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) {
    return pythonType(schema.allOf[0], ctx, hint, depth + 1, refs);
  }
  const type = schema.type;
  if (Array.isArray(type)) {
    return union(type.map((t) => pythonType({ ...schema, type: t }, ctx, hint, depth, refs)));
  }
  switch (type) {
    case 'string':
      return 'str';
    case 'integer':
      return 'int';
    case 'number':
      return 'float';
    case 'boolean':
      return 'bool';
    case 'null':
      return 'None';
    case 'array':
      return `list[${pythonType(schema.items, ctx, singularHint(hint), depth + 1, refs)}]`;
    case 'object':
      return objectType(schema, ctx, hint, depth, refs);
    case undefined:
      return isObject(schema.properties) ? objectType(schema, ctx, hint, depth, refs) : 'Any';
    default:
      return 'Any';
  }
}

function singularHint(hint: string): string {
  if (/ies$/.test(hint)) return `${hint.slice(0, -3)}y`;
  return /[^s]s$/.test(hint) ? hint.slice(0, -1) : `${hint}Item`;
}

function objectType(schema: Schema, ctx: TypeContext, hint: string, depth: number, refs: ReadonlySet<string>): string {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const keys = Object.keys(properties);
  if (keys.length === 0) {
    const extra = schema.additionalProperties;
    return isObject(extra) ? `dict[str, ${pythonType(extra, ctx, hint, depth + 1, refs)}]` : 'dict[str, Any]';
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields = keys.map(
    (key): TypedDictField => ({
      key,
      type: pythonType(properties[key], ctx, key, depth + 1, refs),
      required: required.has(key),
      note: fieldNote(properties[key]),
    }),
  );
  return ctx.registry.declare(hint, fields);
}

/** A property's description and constraints on one line. */
export function fieldNote(schema: unknown): string {
  if (!isObject(schema)) return '';
  const description = typeof schema.description === 'string' ? oneLineText(schema.description) : '';
  const constraints = constraintText(schema);
  return [description, constraints].filter((part) => part !== '').join('; ');
}
