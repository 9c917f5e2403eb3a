// Schemas that other libraries generate (zod, MCP servers) usually declare their
// dialect with a root `$schema`. It constrains nothing, so it is dropped before the
// schema is checked against our supported subset; every other keyword is checked.

/** A shallow copy of `schema` without a root `$schema` (other values unchanged). */
export function withoutSchemaDialect(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || !Object.hasOwn(schema, '$schema')) return schema;
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
}
