// The author-facing schema DSL and its compile-time type inference.
import type { JsonMutable } from '../json/json-value.ts';

interface NodeBase {
  readonly description?: string;
  readonly title?: string;
  /** Only meaningful inside a property map: absent means optional. */
  readonly required?: boolean;
  /** Adds `null` to the accepted values. */
  readonly nullable?: boolean;
  readonly default?: JsonMutable;
  readonly examples?: readonly JsonMutable[];
}
export interface StringNode extends NodeBase {
  readonly type: 'string';
  readonly enum?: readonly string[];
  readonly const?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
}
export interface NumberNode extends NodeBase {
  readonly type: 'number' | 'integer';
  readonly enum?: readonly number[];
  readonly const?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly multipleOf?: number;
}
export interface BooleanNode extends NodeBase {
  readonly type: 'boolean';
  readonly const?: boolean;
}
export interface NullNode extends NodeBase {
  readonly type: 'null';
}
export interface ArrayNode extends NodeBase {
  readonly type: 'array';
  readonly items?: SchemaNode;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
}
export interface ObjectNode extends NodeBase {
  readonly type: 'object';
  readonly properties?: PropertyMap;
  /** Required on nested objects: say explicitly whether unknown fields are allowed. */
  readonly additionalProperties: boolean;
  readonly minProperties?: number;
  readonly maxProperties?: number;
}
/** Any supported JSON value; compiles to an annotation-only schema. */
export interface JsonNode extends NodeBase {
  readonly type: 'json';
}
export interface UnionNode extends NodeBase {
  readonly anyOf?: readonly SchemaNode[];
  readonly oneOf?: readonly SchemaNode[];
}

export type SchemaNode =
  | StringNode
  | NumberNode
  | BooleanNode
  | NullNode
  | ArrayNode
  | ObjectNode
  | JsonNode
  | UnionNode;
export type PropertyMap = { readonly [name: string]: SchemaNode };

// ---- type inference (a type limit only: past 16 container levels, JsonValue) ----

/** Plain JSON as the program sees it. */
export type JsonValueType = null | boolean | number | string | JsonValueType[] | { [key: string]: JsonValueType };

// `D` holds one entry per container (object or array) enclosing the node. A container
// node with MaxInferenceDepth containers above it (the 17th level) becomes JsonValue;
// scalars are typed at any level.
type Depth = readonly unknown[];
type Deeper<D extends Depth> = readonly [unknown, ...D];
/** Inference types this many container levels (the args root counts as one); deeper containers are JsonValue. */
export type MaxInferenceDepth = 16;

type WithNull<N, T> = N extends { readonly nullable: true } ? T | null : T;

type InferScalar<N> = N extends { readonly const: infer C }
  ? C
  : N extends { readonly enum: readonly (infer E)[] }
    ? E
    : N extends { readonly type: 'string' }
      ? string
      : N extends { readonly type: 'number' | 'integer' }
        ? number
        : N extends { readonly type: 'boolean' }
          ? boolean
          : null;

type InferUnion<N, D extends Depth> = N extends { readonly anyOf: readonly (infer M)[] }
  ? InferNodeAt<M, D>
  : N extends { readonly oneOf: readonly (infer M)[] }
    ? InferNodeAt<M, D>
    : JsonValueType;

type InferContainer<N, D extends Depth> = D['length'] extends MaxInferenceDepth
  ? JsonValueType
  : N extends { readonly type: 'array' }
    ? N extends { readonly items: infer I }
      ? InferNodeAt<I, Deeper<D>>[]
      : JsonValueType[]
    : N extends { readonly properties: infer P }
      ? InferMapAt<P, Deeper<D>>
      : { [key: string]: JsonValueType };

type InferNodeAt<N, D extends Depth> = WithNull<
  N,
  N extends { readonly type: 'json' }
    ? JsonValueType
    : N extends { readonly type: 'array' | 'object' }
      ? InferContainer<N, D>
      : N extends { readonly type: string }
        ? InferScalar<N>
        : InferUnion<N, D>
>;

type RequiredKeys<P> = { [K in keyof P]: P[K] extends { readonly required: true } ? K : never }[keyof P];
type OptionalKeys<P> = Exclude<keyof P, RequiredKeys<P>>;
type Flatten<T> = { [K in keyof T]: T[K] };

/** The properties of a map whose object has `D` containers above the properties (itself included). */
type InferMapAt<P, D extends Depth> = Flatten<
  { [K in RequiredKeys<P>]: InferNodeAt<P[K], D> } & { [K in OptionalKeys<P>]?: InferNodeAt<P[K], D> }
>;

/** The TypeScript type of a value that satisfies schema node `N`. */
export type InferNode<N> = InferNodeAt<N, readonly []>;
/** The TypeScript type of the arguments described by property map `P` (the implicit object root). */
export type InferArgs<P> = InferMapAt<P, readonly [unknown]>;
