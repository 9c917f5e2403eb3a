// One shared ajv instance; each schema is compiled exactly once, at definition time.
import { Ajv, type ValidateFunction } from 'ajv';
import { DefinitionError } from '../errors/definition-error.ts';
import type { JsonSchema } from './compile-schema.ts';

// ownProperties: a property named "constructor" or "toString" must not be read from
// Object.prototype (ajv's default would see an absent optional one as present).
const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true, validateSchema: true, ownProperties: true });

export function schemaValidator(schema: JsonSchema, toolName: string, where: string): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw new DefinitionError('UNSUPPORTED_SCHEMA', `tool "${toolName}": ${where} could not be compiled: ${(error as Error).message}`, { where });
  }
}
