import { stringLiteral } from './string-literal.ts';

// ASCII identifiers only: anything else is quoted, which every reader understands.
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A property or method name for a type literal: bare when it is an identifier,
 * else a quoted string literal. `new` is quoted because `new(...)` in a type
 * literal declares a construct signature, not a method.
 */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) && name !== 'new' ? name : stringLiteral(name);
}
