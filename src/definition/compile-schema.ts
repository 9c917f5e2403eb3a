// Compiles the schema DSL (defineTool's small, strict subset) into the plain JSON
// Schema that ajv validates and models see. Schemas from outside (MCP, zod, raw JSON
// Schema) take the other path, compile-json-schema.ts, as full JSON Schema. Walks with an explicit stack so a
// hostile 10,000-deep schema neither overflows nor hangs: it is rejected at
// MAX_SCHEMA_DEPTH with the path, and a schema that contains itself is a cycle error.
import { DefinitionError } from '../errors/definition-error.ts';
import type { JsonMutable } from '../json/json-value.ts';
import { trySnapshotJson } from '../json/json-value.ts';

/** Deepest nesting of schemas we accept (ajv itself recurses per level). */
export const MAX_SCHEMA_DEPTH = 64;

export type JsonSchema = { [keyword: string]: JsonMutable };

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object']);
const ANNOTATIONS = ['description', 'title', 'default', 'examples'] as const;
const BY_TYPE: Record<string, readonly string[]> = {
  string: ['enum', 'const', 'minLength', 'maxLength', 'pattern'],
  number: ['enum', 'const', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['enum', 'const', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  boolean: ['enum', 'const'],
  null: [],
  array: ['items', 'minItems', 'maxItems', 'uniqueItems'],
  object: ['properties', 'additionalProperties', 'required', 'minProperties', 'maxProperties'],
};
/** Documented subset, for error messages. */
export const SUPPORTED_KEYWORDS = [
  ...new Set(['type', 'nullable', 'required', 'anyOf', 'oneOf', ...ANNOTATIONS, ...Object.values(BY_TYPE).flat()]),
].join(', ');

interface Task {
  readonly node: unknown;
  readonly path: string;
  readonly depth: number;
  readonly assign: (schema: JsonSchema) => void;
}

const fail = (path: string, message: string): never => {
  throw new DefinitionError('UNSUPPORTED_SCHEMA', `schema at ${path}: ${message}`, { path });
};
/** A JSON copy of a schema value (default, examples, enum, const), or a definition error at its path. */
const jsonAt = (value: unknown, path: string): JsonMutable => {
  const snap = trySnapshotJson(value, path);
  return snap.ok ? (snap.value as JsonMutable) : fail(snap.error.path, `must be JSON: ${snap.error.reason}`);
};
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const ownKeys = (v: Record<string, unknown>): string[] => Object.keys(v);
const prop = (v: Record<string, unknown>, k: string): unknown => (Object.hasOwn(v, k) ? v[k] : undefined);

/** Compiles one schema node (an output schema, or a property's schema). */
export function compileSchema(root: unknown, path: string): JsonSchema {
  let result: JsonSchema | undefined;
  const stack: Task[] = [{ node: root, path, depth: 1, assign: (s) => (result = s) }];
  const onPath = new Map<object, number>(); // node -> depth at which it is being expanded
  while (stack.length > 0) {
    const task = stack.pop()!;
    compileNode(task, stack, onPath);
  }
  return result!;
}

/** Compiles a DSL property map into the implicit, open object root of a tool's parameters. */
export function compileParameters(map: unknown, path = 'parameters'): JsonSchema {
  if (!isRecord(map))
    fail(path, 'parameters must be a property map object, e.g. { q: { type: "string", required: true } }');
  return compileSchema({ type: 'object', properties: map, additionalProperties: true }, path);
}

function compileNode(task: Task, stack: Task[], onPath: Map<object, number>): void {
  const { node, path, depth } = task;
  if (depth > MAX_SCHEMA_DEPTH) fail(path, `nesting deeper than ${MAX_SCHEMA_DEPTH} levels is not supported`);
  if (!isRecord(node)) fail(path, 'expected a schema object');
  const n = node as Record<string, unknown>;
  // Depth-first with an explicit stack: when a node at depth d is visited, every
  // entry at depth >= d is a finished subtree, so what remains are its ancestors.
  for (const [k, d] of onPath) if (d >= depth) onPath.delete(k);
  if (onPath.has(n)) fail(path, 'cycle: this schema contains itself');
  onPath.set(n, depth);

  const out: JsonSchema = {};
  for (const a of ANNOTATIONS) {
    const v = prop(n, a);
    if (v === undefined) continue;
    if ((a === 'description' || a === 'title') && typeof v !== 'string')
      fail(`${path}.${a}`, `"${a}" must be a string`);
    out[a] = jsonAt(v, `${path}.${a}`);
  }
  const type = prop(n, 'type');
  const nullable = prop(n, 'nullable');
  if (nullable !== undefined && typeof nullable !== 'boolean') fail(`${path}.nullable`, '"nullable" must be a boolean');
  const allowed = new Set<string>(['type', 'nullable', ...ANNOTATIONS]);
  allowed.add('required'); // property-level flag, checked by the parent

  if (type === undefined || Array.isArray(type)) {
    const union = prop(n, 'anyOf') !== undefined ? 'anyOf' : prop(n, 'oneOf') !== undefined ? 'oneOf' : undefined;
    if (Array.isArray(type)) fail(`${path}.type`, 'use a single type plus "nullable: true" instead of a type array');
    if (union !== undefined) {
      allowed.add(union);
      checkKeywords(n, allowed, path);
      const members = prop(n, union);
      if (!Array.isArray(members) || members.length === 0)
        fail(`${path}.${union}`, `"${union}" must be a non-empty array of schemas`);
      // Members are filled in by their own tasks; `nullable` appends a null member.
      const compiled: JsonSchema[] = new Array<JsonSchema>((members as unknown[]).length);
      (members as unknown[]).forEach((m, i) =>
        stack.push({ node: m, path: `${path}.${union}[${i}]`, depth: depth + 1, assign: (s) => (compiled[i] = s) }),
      );
      if (nullable === true && union === 'oneOf') {
        // An extra null member of a oneOf would make null fail whenever a member accepts null too.
        out.anyOf = [{ oneOf: compiled as unknown as JsonMutable }, { type: 'null' }];
        return task.assign(out);
      }
      if (nullable === true) compiled.push({ type: 'null' });
      out[union] = compiled as unknown as JsonMutable;
      return task.assign(out);
    }
    checkKeywords(n, allowed, path); // name an unsupported keyword such as "$ref" before the missing type
    fail(path, 'missing "type" (use { type: "json" } for any JSON value)');
  }
  if (type === 'json') {
    checkKeywords(n, allowed, path);
    return task.assign(out); // annotation-only: any supported JSON value
  }
  if (typeof type !== 'string' || !TYPES.has(type)) {
    fail(`${path}.type`, `unsupported type ${JSON.stringify(type)} (supported: ${[...TYPES].join(', ')}, json)`);
  }
  const t = type as string;
  for (const kw of BY_TYPE[t] ?? []) allowed.add(kw);
  checkKeywords(n, allowed, path);
  out.type = nullable === true ? [t, 'null'] : t;
  copyTypeKeywords(n, out, [t], path, depth, stack);
  if (nullable === true && Array.isArray(out.enum)) out.enum = [...out.enum, null];
  // `const` would refuse the null that `nullable` (and the inferred type) allows.
  if (nullable === true && Object.hasOwn(out, 'const') && out.enum === undefined) {
    out.enum = [out.const as JsonMutable, null];
    delete out.const;
  }
  task.assign(out);
}

function checkKeywords(n: Record<string, unknown>, allowed: Set<string>, path: string): void {
  for (const key of ownKeys(n)) {
    if (!allowed.has(key)) {
      fail(
        `${path}.${key}`,
        `keyword "${key}" is not supported here (supported subset: ${SUPPORTED_KEYWORDS}; not every keyword applies to every type)`,
      );
    }
  }
}

function copyTypeKeywords(
  n: Record<string, unknown>,
  out: JsonSchema,
  kinds: readonly string[],
  path: string,
  depth: number,
  stack: Task[],
): void {
  const numberKw = [
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'multipleOf',
    'minLength',
    'maxLength',
    'minItems',
    'maxItems',
    'minProperties',
    'maxProperties',
  ];
  for (const kw of numberKw) {
    const v = prop(n, kw);
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${path}.${kw}`, `"${kw}" must be a finite number`);
    out[kw] = v as number;
  }
  const pattern = prop(n, 'pattern');
  if (pattern !== undefined) {
    if (typeof pattern !== 'string') fail(`${path}.pattern`, '"pattern" must be a string');
    try {
      new RegExp(pattern as string, 'u');
    } catch (error) {
      fail(`${path}.pattern`, `invalid regular expression: ${(error as Error).message}`);
    }
    out.pattern = pattern as string;
  }
  const uniqueItems = prop(n, 'uniqueItems');
  if (uniqueItems !== undefined) {
    if (typeof uniqueItems !== 'boolean') fail(`${path}.uniqueItems`, '"uniqueItems" must be a boolean');
    out.uniqueItems = uniqueItems as boolean;
  }
  const enumValues = prop(n, 'enum');
  if (enumValues !== undefined) {
    if (!Array.isArray(enumValues) || enumValues.length === 0) fail(`${path}.enum`, '"enum" must be a non-empty array');
    out.enum = jsonAt(enumValues, `${path}.enum`);
  }
  if (Object.hasOwn(n, 'const')) out.const = jsonAt(n.const, `${path}.const`);

  if (kinds.includes('array')) {
    const items = prop(n, 'items');
    if (items !== undefined) {
      if (Array.isArray(items)) fail(`${path}.items`, 'tuple "items" arrays are not supported; give one schema');
      stack.push({ node: items, path: `${path}.items`, depth: depth + 1, assign: (s) => (out.items = s) });
    }
  }
  if (kinds.includes('object')) compileObject(n, out, path, depth, stack);
}

function compileObject(n: Record<string, unknown>, out: JsonSchema, path: string, depth: number, stack: Task[]): void {
  const additional = prop(n, 'additionalProperties');
  if (typeof additional !== 'boolean') {
    fail(
      `${path}.additionalProperties`,
      'nested objects must say "additionalProperties: true" (open) or "additionalProperties: false" (closed) explicitly',
    );
  }
  out.additionalProperties = additional as boolean;
  const properties = prop(n, 'properties');
  const required: string[] = [];
  const rawRequired = prop(n, 'required');
  // A JSON Schema habit in the DSL would otherwise be silently ignored.
  if (rawRequired !== undefined && typeof rawRequired !== 'boolean') {
    fail(`${path}.required`, 'in the DSL mark each property with "required: true" instead of a "required" array');
  }
  if (properties !== undefined) {
    if (!isRecord(properties)) fail(`${path}.properties`, '"properties" must be an object mapping names to schemas');
    const compiled: JsonSchema = {};
    for (const name of ownKeys(properties as Record<string, unknown>)) {
      const child = (properties as Record<string, unknown>)[name];
      const childPath = `${path}.properties[${JSON.stringify(name)}]`;
      // ajv skips this name when it compiles "properties", so it could never be validated.
      if (name === '__proto__')
        fail(childPath, 'a property named "__proto__" cannot be validated; choose another name');
      if (isRecord(child)) {
        const flag = prop(child, 'required');
        if (flag !== undefined && typeof flag !== 'boolean')
          fail(`${childPath}.required`, '"required" on a property must be true or false');
        if (flag === true) required.push(name);
      }
      // Own data property, so names like "__proto__" stay ordinary names.
      Object.defineProperty(compiled, name, { value: {}, enumerable: true, writable: true, configurable: true });
      stack.push({
        node: child,
        path: childPath,
        depth: depth + 1,
        assign: (s) =>
          Object.defineProperty(compiled, name, { value: s, enumerable: true, writable: true, configurable: true }),
      });
    }
    out.properties = compiled;
  }
  if (required.length > 0) out.required = required;
}
