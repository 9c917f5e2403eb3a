// One shared ajv instance per schema kind; each schema is compiled exactly once, at definition time.
import type { ValidateFunction } from 'ajv';
import { DefinitionError } from '../errors/definition-error.ts';
import type { ArgIssue } from '../errors/tool-args-error.ts';
import type { JsonSchema } from './compile-schema.ts';
import { createAjv, type AjvKind, type AnyAjv } from './create-ajv.ts';
import { issueMessage } from './format-issue.ts';

const instances = new Map<AjvKind, AnyAjv>();
const ajvFor = (kind: AjvKind): AnyAjv => {
  let ajv = instances.get(kind);
  if (ajv === undefined) {
    ajv = createAjv(kind);
    instances.set(kind, ajv);
  }
  return ajv;
};

/** Compiles a DSL schema (already checked by our compiler). Throws DefinitionError if ajv refuses it. */
export function schemaValidator(schema: JsonSchema, toolName: string, where: string): ValidateFunction {
  try {
    return ajvFor('dsl').compile(schema);
  } catch (error) {
    throw new DefinitionError(
      'UNSUPPORTED_SCHEMA',
      `tool "${toolName}": ${where} could not be compiled: ${(error as Error).message}`,
      { where },
    );
  }
}

/**
 * Compiles an outside schema in its dialect. The schema is removed from ajv's registry
 * right after, so two tools may declare the same `$id` and one tool can never reach
 * another's schema through a `$ref`. Throws what ajv throws (MissingRefError for a
 * reference it cannot resolve locally: ajv never fetches).
 */
export function jsonSchemaValidator(schema: JsonSchema, kind: Exclude<AjvKind, 'dsl'>): ValidateFunction {
  const ajv = ajvFor(kind);
  try {
    return ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
  }
}

/** Issues kept from one validation (an `anyOf` can still report one per branch). */
export const MAX_ISSUES = 20;

/** The issues of `value` against a compiled schema, at most MAX_ISSUES; never throws. */
export function validationIssues(validate: ValidateFunction, value: unknown): ArgIssue[] {
  try {
    if (validate(value)) return [];
  } catch (error) {
    // e.g. a value nested deeper than the stack lets a recursive schema follow.
    return [
      {
        path: '',
        message: `could not be validated: ${error instanceof RangeError ? 'nested too deeply' : String((error as Error)?.message ?? error)}`,
      },
    ];
  }
  return (validate.errors ?? [])
    .slice(0, MAX_ISSUES)
    .map((e) => ({ path: e.instancePath, message: issueMessage(e, validate.schema) }));
}
