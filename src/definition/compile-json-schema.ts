// The second schema path: schemas from outside (MCP servers, zod / Standard Schema,
// raw JSON Schema) are full JSON Schema of their dialect, validated by ajv as they are.
// Nothing here narrows them to our DSL subset. What we refuse is only what is unsafe or
// unbounded: a reference that points outside the schema (it would have to be fetched),
// and a schema nested deeper or larger than the stated limits (the host's work on it
// must stay bounded). A schema ajv cannot compile for any other reason degrades to
// "not validated here" with a warning; the tool is kept.
import type { ValidateFunction } from 'ajv';
import { DefinitionError } from '../errors/definition-error.ts';
import { deepFreeze } from '../json/json-value.ts';
import type { JsonSchema } from './compile-schema.ts';
import type { SchemaDialect } from './create-ajv.ts';
import { jsonSchemaValidator } from './schema-validator.ts';

/** Deepest JSON nesting of an outside schema (a schema level is usually two JSON levels). */
export const MAX_JSON_SCHEMA_NESTING = 128;
/** Most JSON values (objects, arrays, scalars) in one outside schema. */
export const MAX_JSON_SCHEMA_VALUES = 100_000;

export interface CompiledJsonSchema {
  /** A frozen JSON copy without the root `$schema`; what models and the SDK see. */
  readonly schema: JsonSchema;
  readonly dialect: SchemaDialect;
  /** The validator; a degraded schema gets a permissive one (see `warning`). */
  readonly validate: ValidateFunction;
  /** Set when the schema could not be compiled and is not validated here. */
  readonly warning?: string;
}

export interface CompileJsonSchemaOptions {
  /** Where the schema sits, for messages: `parameters`, `output.schema`. */
  readonly path: string;
  /** Dialect when the schema has no recognised `$schema`. MCP says 2020-12. */
  readonly defaultDialect: SchemaDialect;
  /** The validator used when the schema cannot be compiled: `{ type: 'object' }` for arguments, `{}` for values. */
  readonly fallback: JsonSchema;
}

// Keywords whose value is data, not a schema: a "$ref" key inside them is just a key.
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);
const REFERENCE_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'];

const refuse = (path: string, keyword: string | undefined, message: string): never => {
  throw new DefinitionError('UNSUPPORTED_SCHEMA', `schema at ${path}: ${message}`, {
    path,
    ...(keyword === undefined ? {} : { keyword }),
  });
};

/** The dialect a root `$schema` names; draft-04/06 are read as draft-07, 2019-09 as 2020-12. */
export function schemaDialect(schema: unknown, fallback: SchemaDialect): SchemaDialect {
  const declared =
    typeof schema === 'object' && schema !== null && Object.hasOwn(schema, '$schema')
      ? (schema as { $schema: unknown }).$schema
      : undefined;
  if (typeof declared !== 'string') return fallback;
  if (/draft-0[4-7]/u.test(declared)) return 'draft-07';
  if (/20(19-09|20-12)/u.test(declared)) return 'draft-2020-12';
  return fallback;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Copies the schema as JSON.stringify would see it (own enumerable data properties;
 * zod tags its JSON Schema with a non-enumerable `~standard`), with an explicit stack:
 * bounds its nesting and size, collects the `$id`s it declares and refuses a reference
 * whose target is outside it.
 */
function copyChecked(root: object, path: string): { [key: string]: Json } {
  const ids = new Set<string>();
  const refs: Array<{ keyword: string; value: string; path: string }> = [];
  const out: { [key: string]: Json } = {};
  const stack: Array<{
    source: object;
    target: Json[] | { [key: string]: Json };
    path: string;
    depth: number;
    data: boolean;
  }> = [{ source: root, target: out, path, depth: 1, data: false }];
  // A cycle in a live object is refused by the nesting limit; a shared subschema by the size limit.
  let count = 0;
  while (stack.length > 0) {
    const { source, target, path: at, depth, data } = stack.pop()!;
    if (depth > MAX_JSON_SCHEMA_NESTING)
      refuse(
        at,
        undefined,
        `nested deeper than ${MAX_JSON_SCHEMA_NESTING} JSON levels; such a schema is refused to keep the host's work bounded`,
      );
    const isArray = Array.isArray(source);
    const keys = isArray ? [...(source as unknown[]).keys()].map(String) : Object.keys(source);
    if (!isArray && !data) {
      const id = Object.hasOwn(source, '$id') ? (source as { $id: unknown }).$id : undefined;
      if (typeof id === 'string') ids.add(id.replace(/#.*$/su, ''));
      for (const keyword of REFERENCE_KEYWORDS) {
        const ref = Object.hasOwn(source, keyword) ? (source as Record<string, unknown>)[keyword] : undefined;
        if (typeof ref === 'string') refs.push({ keyword, value: ref, path: `${at}.${keyword}` });
      }
    }
    for (const key of keys) {
      if ((count += 1) > MAX_JSON_SCHEMA_VALUES)
        refuse(
          path,
          undefined,
          `more than ${MAX_JSON_SCHEMA_VALUES} JSON values; such a schema is refused to keep the host's work bounded`,
        );
      const descriptor = Object.getOwnPropertyDescriptor(source, key);
      if (descriptor === undefined || !('value' in descriptor)) continue;
      const child: unknown = descriptor.value;
      const childPath = isArray ? `${at}[${key}]` : `${at}[${JSON.stringify(key)}]`;
      let copy: Json;
      if (child === null || typeof child === 'string' || typeof child === 'boolean') copy = child;
      else if (typeof child === 'number') {
        if (!Number.isFinite(child)) refuse(childPath, undefined, `${String(child)} is not a JSON number`);
        copy = child;
      } else if (typeof child === 'object') {
        copy = Array.isArray(child) ? [] : {};
        stack.push({
          source: child,
          target: copy,
          path: childPath,
          depth: depth + 1,
          data: data || (!isArray && DATA_KEYWORDS.has(key)),
        });
      } else if (isArray)
        copy = null; // as JSON.stringify writes undefined/functions in arrays
      else continue; // and leaves them out of objects
      if (Array.isArray(target)) target.push(copy);
      else Object.defineProperty(target, key, { value: copy, enumerable: true, writable: true, configurable: true });
    }
  }
  for (const ref of refs) {
    const base = ref.value.replace(/#.*$/su, '');
    if (base === '' || ids.has(base)) continue;
    refuse(
      ref.path,
      ref.keyword,
      `keyword "${ref.keyword}" points outside the schema (${JSON.stringify(ref.value)}); remote references are never fetched, so this schema is refused (only local "#…" references are followed)`,
    );
  }
  return out;
}

/**
 * Snapshots, checks and compiles one outside schema. Throws DefinitionError
 * (UNSUPPORTED_SCHEMA) only for what is refused: not JSON, a remote reference, or
 * beyond the nesting/size limits. Anything else ajv cannot compile degrades.
 */
export function compileJsonSchema(raw: unknown, options: CompileJsonSchemaOptions): CompiledJsonSchema {
  const { path } = options;
  // Boolean schemas: true accepts anything, false nothing.
  const source = raw === true ? {} : raw === false ? { not: {} } : raw;
  if (typeof source !== 'object' || source === null || Array.isArray(source)) {
    return refuse(path, undefined, 'expected a JSON Schema object (or true/false)');
  }
  const value = copyChecked(source, path);
  deepFreeze(value);
  const dialect = schemaDialect(value, options.defaultDialect);
  // `$schema` only names the dialect (chosen above); other keywords stay as they are.
  const schema: JsonSchema = {};
  for (const key of Object.keys(value)) {
    if (key !== '$schema')
      Object.defineProperty(schema, key, { value: value[key], enumerable: true, writable: true, configurable: true });
  }
  Object.freeze(schema);
  try {
    return { schema, dialect, validate: jsonSchemaValidator(schema, dialect) };
  } catch (error) {
    const message = (error as Error).message;
    if ((error as { missingRef?: unknown }).missingRef !== undefined) {
      return refuse(
        path,
        '$ref',
        `keyword "$ref" cannot be resolved inside the schema (${message}); remote references are never fetched, so this schema is refused`,
      );
    }
    const warning = `${path} is not validated here (ajv could not compile it: ${message.slice(0, 300)})`;
    return { schema, dialect, validate: jsonSchemaValidator(options.fallback, dialect), warning };
  }
}
