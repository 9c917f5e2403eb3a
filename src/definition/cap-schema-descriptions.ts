// Descriptions inside an outside schema (MCP, zod, raw JSON Schema) go to the model with
// the schema; each is capped like a tool's description. Data keywords (`default`,
// `const`, `enum`, `examples`) are values, not descriptions, and stay as they are.
import { capDescription, MAX_DESCRIPTION_CHARS } from '../../sdk-gen/cap-description.ts';
import type { JsonSchema } from './compile-schema.ts';

const DATA_KEYWORDS = new Set(['default', 'const', 'enum', 'examples']);
// Keywords whose value maps names to schemas: the names are not keywords.
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/**
 * `schema` with every `description` over MAX_DESCRIPTION_CHARS capped (visibly), or
 * `schema` itself when none is. Only for a schema already within the nesting limit.
 */
export function capSchemaDescriptions(schema: JsonSchema): JsonSchema {
  return capNode(schema) as JsonSchema;
}

function capNode(node: unknown): unknown {
  if (Array.isArray(node)) {
    const items = node.map(capNode);
    return items.some((item, i) => item !== node[i]) ? items : node;
  }
  if (typeof node !== 'object' || node === null) return node;
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(node)) {
    let next = value;
    if (key === 'description' && typeof value === 'string') {
      if (value.length > MAX_DESCRIPTION_CHARS) next = capDescription(value);
    } else if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      next = capMap(value as Record<string, unknown>);
    } else if (!DATA_KEYWORDS.has(key)) {
      next = capNode(value);
    }
    if (next !== value) (copy ??= { ...node })[key] = next;
  }
  return copy ?? node;
}

function capMap(map: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const [name, schema] of Object.entries(map)) {
    const next = capNode(schema);
    if (next !== schema) (copy ??= { ...map })[name] = next;
  }
  return copy ?? map;
}
