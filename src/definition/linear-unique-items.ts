// `uniqueItems` in time linear in the array's JSON size. ajv's own check compares every
// pair of non-scalar items with a deep equality (quadratic: 14,000 small arrays take
// seconds on the host's event loop). Here each item is reduced to a canonical JSON text
// (object keys sorted, so key order does not matter, as JSON Schema equality says) and
// looked up in a Set: one pass over the data.
import type { KeywordDefinition } from 'ajv';
import type { DataValidateFunction } from 'ajv/dist/types/index.js';
import { canonicalJson as canonical } from '../json/canonical-json.ts';

/** The index pair of the first duplicate, or undefined. */
export function firstDuplicate(items: readonly unknown[]): readonly [number, number] | undefined {
  const seen = new Map<string, number>();
  for (let j = 0; j < items.length; j += 1) {
    const key = canonical(items[j]);
    const i = seen.get(key);
    if (i !== undefined) return [i, j];
    seen.set(key, j);
  }
  return undefined;
}

const uniqueItems: KeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  errors: true,
  compile(schema: boolean) {
    if (!schema) return () => true;
    const validate: DataValidateFunction = (data: unknown) => {
      const pair = firstDuplicate(data as unknown[]);
      if (pair === undefined) return true;
      validate.errors = [
        {
          keyword: 'uniqueItems',
          message: `must NOT have duplicate items (items ## ${pair[1]} and ${pair[0]} are identical)`,
          params: { i: pair[1], j: pair[0] },
        },
      ];
      return false;
    };
    return validate;
  },
};

/** Replaces ajv's quadratic `uniqueItems` with the linear one. */
export function useLinearUniqueItems(ajv: {
  removeKeyword(keyword: string): unknown;
  addKeyword(definition: KeywordDefinition): unknown;
}): void {
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(uniqueItems);
}
