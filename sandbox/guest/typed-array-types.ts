// Every typed array constructor this engine has, read when the prelude loads (before any
// program can replace the globals). Structured clone rebuilds a view by its type's name;
// the URL library's captured subarray/slice find a view's type by its prototype.
type TypedArrayType = new (buffer: ArrayBuffer, offset: number, length: number) => object;

const float16 = (globalThis as { Float16Array?: unknown }).Float16Array;

const types = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
] as unknown as TypedArrayType[];
// An index store, not a spread (which would run the array iterator while the prelude loads).
if (typeof float16 === 'function') types[types.length] = float16 as TypedArrayType;
export const TYPED_ARRAY_TYPES: readonly TypedArrayType[] = types;
