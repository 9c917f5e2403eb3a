// Keywords that combine or refine the root from elsewhere; closing the root's own
// property list next to them could turn a valid member's properties into `never`.
const COMBINING_KEYWORDS = [
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'if',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
  'patternProperties',
];

/**
 * The argument root as the SDK types it: closed. Tool runtimes accept extra root
 * fields at run time (the root is open), but a property the schema does not declare
 * is almost always a misspelling (`{ qurey: 'vpn' }`), so the type leaves it out
 * and a type check of the program reports it. Only a plain object root with
 * declared properties and no typed extras is closed; anything else is returned
 * unchanged (an empty property list documents nothing a program could misspell).
 */
export function closedArgsRoot(parameters: unknown): unknown {
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) return parameters;
  const schema = parameters as { readonly [key: string]: unknown };
  const own = (keyword: string): unknown => (Object.hasOwn(schema, keyword) ? schema[keyword] : undefined);
  const properties = own('properties');
  const additional = own('additionalProperties');
  const type = own('type');
  if (type !== undefined && type !== 'object') return parameters;
  if (typeof properties !== 'object' || properties === null || Object.keys(properties).length === 0) return parameters;
  if (additional !== undefined && additional !== true) return parameters;
  if (COMBINING_KEYWORDS.some((keyword) => Object.hasOwn(schema, keyword))) return parameters;
  return { ...schema, additionalProperties: false };
}
