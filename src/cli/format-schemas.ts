// `ptc schemas --format`: the tool list exactly as a provider would receive it.
import { toAnthropicTools } from '../adapters/anthropic.ts';
import { toOpenAIChatTools } from '../adapters/openai.ts';
import type { ToolSchemaProjection } from '../runtime/create-tool-runtime.ts';

export const SCHEMA_FORMATS = ['raw', 'anthropic', 'openai'] as const;
export type SchemaFormat = (typeof SCHEMA_FORMATS)[number];

export function formatSchemas(schemas: readonly ToolSchemaProjection[], format: SchemaFormat): unknown {
  switch (format) {
    case 'raw':
      return schemas;
    case 'anthropic':
      return toAnthropicTools(schemas);
    case 'openai':
      return toOpenAIChatTools(schemas);
  }
}
