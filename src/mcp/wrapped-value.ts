// MCP carries only objects as structuredContent. A tool of ours whose value is not an
// object (an array, a string, a number, a boolean, null) is served with the value wrapped
// as `{ value: … }`, its listing's outputSchema describing that wrapper, and the marker
// below in the tool's and the result's `_meta`. Our import unwraps what carries the
// marker, so a value comes back as the same JSON, typed by the same schema; any other
// server's output without an outputSchema is its text, typed as a string.
import type { JsonValue } from '../json/json-value.ts';

/** `_meta` key: `true` on a listed tool and on a result whose structuredContent is `{ value }`. */
export const MCP_META_WRAPPED = 'ptc-runtime/wrappedValue';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a value must be wrapped to travel as structuredContent. */
export const needsWrapping = (value: JsonValue | undefined): boolean => value !== undefined && !isObject(value);

/**
 * Whether a tool whose output schema is `schema` is listed with the wrapper: every schema but
 * an object's. Its results must then always be wrapped, objects included (an any-JSON schema
 * may return an object), or a client validating structuredContent refuses them.
 */
export const listedAsWrapped = (schema: { readonly type?: unknown } | undefined): boolean =>
  schema !== undefined && schema.type !== 'object';

/** The outputSchema of a wrapped value: an object with one required `value`. */
export function wrappedSchema(valueSchema: object): Record<string, unknown> {
  return {
    type: 'object',
    properties: { value: valueSchema },
    required: ['value'],
    additionalProperties: false,
  };
}

/** The wrapped value's own schema, when a listed schema is one of ours. */
export function unwrapSchema(schema: unknown): unknown {
  if (!isObject(schema) || !isObject(schema.properties)) return undefined;
  return schema.properties.value ?? {};
}

/** Whether `_meta` carries the marker. */
export const isWrapped = (meta: unknown): boolean => isObject(meta) && meta[MCP_META_WRAPPED] === true;

/** The value of a wrapped structuredContent, or undefined when it is not one. */
export function unwrapValue(structured: unknown): { readonly value: JsonValue } | undefined {
  if (!isObject(structured) || !Object.hasOwn(structured, 'value')) return undefined;
  return { value: structured.value as JsonValue };
}
