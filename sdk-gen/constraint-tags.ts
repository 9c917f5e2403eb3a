import { stringLiteral } from './string-literal.ts';

/** The bounds of a value (format, ranges, lengths, counts), in the order every SDK shows them. */
export const VALUE_CONSTRAINTS = [
  'format',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
] as const;

// Validation keywords a model needs to write valid arguments, in the order shown.
const TAGGED = [
  ...VALUE_CONSTRAINTS,
  'propertyNames',
  'patternProperties',
  'contains',
  'minContains',
  'maxContains',
  // Rules a TypeScript type cannot state: shown as they are, so the model still reads them.
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'default',
  'deprecated',
] as const;
// One tag's value is cut here (with "…"): a huge default must not flood the SDK.
const MAX_VALUE_LENGTH = 200;
const PLAIN = /^[A-Za-z0-9_.:+-]+$/;

/**
 * A value as tag text: numbers and booleans as they are, a plain word bare
 * (`@format email`), anything else as JSON. The text stays on one line (JSON escapes
 * control characters; U+2028/U+2029 are escaped too), and every `*` `/` pair is written
 * `*\/` — a valid JSON escape of `/` — so the value can never close the comment and
 * still decodes (JSON.parse) to exactly the schema's value.
 */
function tagValue(keyword: string, value: unknown): string {
  let text: string;
  if (typeof value === 'string' && keyword === 'format' && PLAIN.test(value)) text = value;
  else if (typeof value === 'string') text = stringLiteral(value);
  else text = (JSON.stringify(value) ?? 'null').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  if (text.length > MAX_VALUE_LENGTH) text = `${text.slice(0, MAX_VALUE_LENGTH - 1)}…`;
  return text.replace(/\*\//g, '*\\/');
}

/**
 * The constraints of one schema as doc-comment tags: `@minimum 1 @maxLength 80
 * @format email @default 20 @pattern "^[a-z]+$"`. `propertyNames` and
 * `patternProperties` give their schemas (or the patterns' keys) as JSON. `prefix`
 * names where the schema sits (`items.` for an array's items). `''` when there are none.
 */
export function constraintTags(schema: unknown, prefix = ''): string {
  return shownConstraints(schema)
    .map(({ keyword, value }) => `@${prefix}${keyword} ${tagValue(keyword, value)}`)
    .join(' ');
}

/** One constraint an SDK shows: its keyword and the value shown (`patternProperties`: the patterns). */
export interface ShownConstraint {
  readonly keyword: (typeof TAGGED)[number];
  readonly value: unknown;
}

/**
 * The constraints of one schema every SDK shows (the TypeScript SDK as tags, the Python
 * stubs in docstrings), in the order shown; none for what is not a schema object.
 */
export function shownConstraints(schema: unknown): ShownConstraint[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const shown: ShownConstraint[] = [];
  for (const keyword of TAGGED) {
    let value = Object.hasOwn(schema, keyword) ? (schema as Record<string, unknown>)[keyword] : undefined;
    if (value === undefined) continue;
    if (keyword === 'patternProperties') {
      if (typeof value !== 'object' || value === null) continue;
      value = Object.keys(value);
    }
    shown.push({ keyword, value });
  }
  return shown;
}
