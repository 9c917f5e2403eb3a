// What every BFCL environment offers the harness: load a cfg, call a method by name with
// bound keyword arguments, and expose its public attributes (the ones upstream compares).
import { keyError, PyError, type PyValue, pyRepr } from '../py-value.ts';

export type Args = Readonly<Record<string, PyValue>>;

export interface BfclEnv {
  load(cfg: Record<string, PyValue>, longContext: boolean): void;
  /** Public attributes (no leading `_`), live, as upstream's checker reads them. */
  state(): Record<string, PyValue>;
  /** Runs one method; throws PyError for what Python would raise. */
  call(method: string, args: Args): PyValue;
}

/** A required argument, or Python's TypeError for a missing one. */
export function req(args: Args, method: string, name: string): PyValue {
  if (!(name in args)) throw new PyError(`${method}() missing 1 required positional argument: '${name}'`);
  return args[name];
}

export const opt = (args: Args, name: string, fallback: PyValue): PyValue => (name in args ? args[name] : fallback);

/** `d[key]` on a plain dict, raising KeyError. */
export function item(d: PyValue, key: string): PyValue {
  if (typeof d !== 'object' || d === null || Array.isArray(d) || d instanceof Map || d instanceof Set)
    throw new PyError(`'${typeName(d)}' object is not subscriptable`);
  if (!Object.hasOwn(d, key)) throw keyError(key);
  return (d as Record<string, PyValue>)[key];
}

export function typeName(v: PyValue): string {
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'string') return 'str';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Set) return 'set';
  return 'dict';
}

/** Python's `str(v)` (what an f-string prints). */
export const str = (v: PyValue): string => (typeof v === 'string' ? v : pyRepr(v));
export const num = (v: PyValue): number => {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return Number(v);
  throw new PyError(`unsupported operand type: '${typeName(v)}'`);
};

/** Python truthiness. */
export function truthy(v: PyValue): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map || v instanceof Set) return v.size > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

export type Dict = Record<string, PyValue>;
export const isDict = (v: PyValue): v is Dict =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Map) && !(v instanceof Set);

/** Dispatch a method name to a table of implementations; unknown names are Python's AttributeError. */
export function dispatch(
  className: string,
  table: Readonly<Record<string, (args: Args) => PyValue>>,
  method: string,
  args: Args,
): PyValue {
  const fn = Object.hasOwn(table, method) ? table[method] : undefined;
  if (fn === undefined) throw new PyError(`'${className}' object has no attribute '${method}'`);
  return fn(args);
}
