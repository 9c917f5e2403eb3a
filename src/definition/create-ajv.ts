// The one place ajv instances are built, so every validator shares the same options
// (and the same bounds on validation cost). Two schema paths use them:
// - `dsl`: our own defineTool subset, compiled in strict mode (a stray keyword is a bug);
// - `draft-07` / `draft-2020-12`: schemas from outside (MCP servers, zod / Standard
//   Schema, raw JSON Schema), validated as full JSON Schema of their dialect.
import { Ajv, type Options } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { useLinearUniqueItems } from './linear-unique-items.ts';
import { re2RegExp } from './re2-reg-exp.ts';

/** The JSON Schema dialects outside schemas are validated in. */
export type SchemaDialect = 'draft-07' | 'draft-2020-12';
export type AjvKind = 'dsl' | SchemaDialect;
export type AnyAjv = Ajv | Ajv2020;

// ajv-formats is CommonJS; its default export arrives as the module object under NodeNext types.
const addFormats = addFormatsPlugin as unknown as (ajv: AnyAjv) => AnyAjv;

const SHARED: Options = {
  // The first error is enough to tell the caller what to fix, and stops the work there.
  allErrors: false,
  // A property named "constructor" or "toString" must not be read from Object.prototype
  // (ajv's default would see an absent optional one as present).
  ownProperties: true,
  validateSchema: true,
  // Model input is validated on the host's event loop: `pattern` and `patternProperties`
  // run on RE2, whose time is linear in the input (a backtracking RegExp is not).
  code: { regExp: re2RegExp },
};

/**
 * A new ajv instance for one kind of schema. The DSL is strict (our compiler emits only
 * known keywords); outside schemas are not: vendor keywords (`x-…`, `examples`, zod's
 * `~standard` hints) and unknown formats are ignored, as JSON Schema says they are.
 */
export function createAjv(kind: AjvKind): AnyAjv {
  const ajv =
    kind === 'dsl'
      ? new Ajv({ ...SHARED, strict: true, allowUnionTypes: true })
      : kind === 'draft-07'
        ? new Ajv({ ...SHARED, strict: false, logger: false })
        : new Ajv2020({ ...SHARED, strict: false, logger: false });
  // ajv's own uniqueItems is quadratic on arrays of objects or arrays.
  useLinearUniqueItems(ajv);
  return addFormats(ajv);
}
