// Compact text of any guest value for logs and thrown non-Errors. Never runs a getter,
// a Proxy's reads are plain descriptor reads, and the output is bounded in nodes and length.
import {
  apply,
  create,
  cut,
  ErrorProto,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  hasOwn,
  isArray,
  mapForEach,
  MapProto,
  mapSize,
  objectKeys,
  ObjectProto,
  own,
  setForEach,
  SetProto,
  setSize,
  stackGetter,
  stringify,
  symbolToString,
} from './intrinsics.ts';

/** Prototypes whose instances JSON would silently change, with how to say so. */
// Prototype, label, prototype, label …: one flat literal (a literal per pair cost ~15 us a fresh isolate).
export const LOSSY: readonly (object | string)[] = [
  MapProto,
  'a Map (convert it with Object.fromEntries(map) or [...map])',
  SetProto,
  'a Set (convert it with [...set])',
  WeakMap.prototype,
  'a WeakMap',
  WeakSet.prototype,
  'a WeakSet',
  WeakRef.prototype,
  'a WeakRef',
  Promise.prototype,
  'a Promise (did you forget await?)',
  RegExp.prototype,
  'a RegExp',
  ErrorProto,
  'an Error (return its message instead)',
  ArrayBuffer.prototype,
  'an ArrayBuffer',
  getPrototypeOf(Uint8Array.prototype) as object,
  'a typed array (convert it with Array.from)',
  DataView.prototype,
  'a DataView',
  Symbol.prototype,
  'a Symbol object',
  Number.prototype,
  'a Number object',
  String.prototype,
  'a String object',
  Boolean.prototype,
  'a Boolean object',
  Function.prototype,
  'a function',
  Date.prototype,
  'a Date (send date.toISOString() or a number)',
];

export function protoLabel(value: object): string | undefined {
  let proto = getPrototypeOf(value) as object | null;
  for (let depth = 0; depth < 32 && proto !== null; depth++) {
    if (proto === ObjectProto) return undefined;
    for (let i = 0; i < LOSSY.length; i += 2) {
      if (LOSSY[i] === proto) return LOSSY[i + 1] as string;
    }
    proto = getPrototypeOf(proto) as object | null;
  }
  return undefined;
}

function isErrorLike(value: object): boolean {
  let proto = getPrototypeOf(value) as object | null;
  for (let depth = 0; depth < 32 && proto !== null; depth++) {
    if (proto === ErrorProto) return true;
    proto = getPrototypeOf(proto) as object | null;
  }
  return false;
}

interface DataRead {
  readonly found: boolean;
  readonly accessor: boolean;
  readonly value: unknown;
}

/** Reads a data property along the prototype chain; accessors are reported, never called. */
function dataProperty(value: object, key: string): DataRead {
  let target = value as object | null;
  for (let depth = 0; depth < 32 && target !== null; depth++) {
    const desc = getOwnPropertyDescriptor(target, key);
    if (desc !== undefined) {
      if (apply(hasOwn, desc, ['value']))
        return { __proto__: null, found: true, accessor: false, value: desc.value } as DataRead;
      return { __proto__: null, found: true, accessor: true, value: undefined } as DataRead;
    }
    target = getPrototypeOf(target) as object | null;
  }
  return { __proto__: null, found: false, accessor: false, value: undefined } as DataRead;
}

interface ErrorInfo {
  readonly name: string;
  readonly message: string;
  readonly text: string;
  readonly stack: string | undefined;
}

function errorInfo(error: object): ErrorInfo {
  const name = dataProperty(error, 'name');
  const message = dataProperty(error, 'message');
  const nameText = !name.accessor && typeof name.value === 'string' && name.value !== '' ? name.value : 'Error';
  let messageText = '';
  if (message.accessor) messageText = '[message is a getter; not read]';
  else if (typeof message.value === 'string') messageText = message.value;
  let text = messageText === '' ? nameText : nameText + ': ' + messageText;
  const toolName = dataProperty(error, 'toolName');
  const code = dataProperty(error, 'code');
  if (nameText === 'ToolCallError' && typeof toolName.value === 'string' && typeof code.value === 'string') {
    text = text + ' (tools.' + toolName.value + ', code ' + code.value + ')';
  }
  let stack: string | undefined;
  if (!name.accessor && !message.accessor && stackGetter !== undefined) {
    const desc = getOwnPropertyDescriptor(error, 'stack');
    if (desc !== undefined && own(desc, 'get') === stackGetter) {
      try {
        const value: unknown = apply(stackGetter, error, []);
        if (typeof value === 'string') stack = cut(value, 4000);
      } catch {
        stack = undefined;
      }
    }
  }
  return { __proto__: null, name: nameText, message: messageText, text: cut(text, 2000), stack } as ErrorInfo;
}

function functionName(fn: object): string {
  const desc = getOwnPropertyDescriptor(fn, 'name');
  const name = desc !== undefined ? own(desc, 'value') : undefined;
  return typeof name === 'string' && name !== '' ? ' ' + name : '';
}

interface FormatBudget {
  nodes: number;
  length: number;
  readonly budget: number;
}

function format(value: unknown, depth: number, seen: Record<number, unknown>, budget: FormatBudget): string {
  budget.nodes++;
  if (budget.nodes > 2000 || budget.length > budget.budget) return '...';
  if (typeof value === 'string') return depth === 0 ? value : stringify(value);
  if (typeof value === 'number') return value === 0 && 1 / value < 0 ? '-0' : '' + value;
  if (typeof value === 'bigint') return '' + value + 'n';
  if (typeof value === 'boolean' || value === undefined || value === null) return '' + value;
  if (typeof value === 'symbol') return apply(symbolToString, value, []);
  if (typeof value === 'function') return '[Function' + functionName(value) + ']';
  const object = value as object;
  for (let i = 0; i < depth; i++) if (seen[i] === object) return '[Circular]';
  if (isErrorLike(object)) return errorInfo(object).text;
  if (depth >= 4) return isArray(object) ? '[Array]' : '[Object]';
  seen[depth] = object;
  let out: string;
  if (isArray(object)) {
    out = '[';
    const length = object.length;
    for (let i = 0; i < length; i++) {
      if (i >= 100) {
        out += ',... ' + (length - 100) + ' more';
        break;
      }
      const item = formatOwn(object, i, depth, seen, budget);
      out += (i === 0 ? '' : ',') + item;
      budget.length += item.length;
      if (budget.length > budget.budget) break;
    }
    return out + ']';
  }
  const proto = getPrototypeOf(object) as object | null;
  if ((proto === MapProto || proto === SetProto) && mapSize !== undefined && setSize !== undefined) {
    const isMap = proto === MapProto;
    out = (isMap ? 'Map(' + String(apply(mapSize, object, [])) : 'Set(' + String(apply(setSize, object, []))) + ') {';
    let count = 0;
    const visit = (item: unknown, key: unknown): void => {
      count++;
      if (count > 20 || budget.length > budget.budget) return;
      const text = (isMap ? format(key, depth + 1, seen, budget) + ' => ' : '') + format(item, depth + 1, seen, budget);
      out += (count === 1 ? '' : ',') + text;
      budget.length += text.length;
    };
    apply(isMap ? mapForEach : setForEach, object, [visit]);
    return out + (count > 20 ? ',...}' : '}');
  }
  out = '{';
  const keys = objectKeys(object);
  for (let i = 0; i < keys.length; i++) {
    if (i >= 100) {
      out += ',... ' + (keys.length - 100) + ' more';
      break;
    }
    const key = keys[i] as string;
    const text = stringify(key) + ':' + formatOwn(object, key, depth, seen, budget);
    out += (i === 0 ? '' : ',') + text;
    budget.length += text.length;
    if (budget.length > budget.budget) break;
  }
  return out + '}';
}

/** An own property's value formatted, without calling its getter (shown as `[Getter]`). */
function formatOwn(
  object: object,
  key: string | number,
  depth: number,
  seen: Record<number, unknown>,
  budget: FormatBudget,
): string {
  const desc = getOwnPropertyDescriptor(object, key);
  if (desc === undefined) return 'undefined';
  return apply(hasOwn, desc, ['value']) ? format(desc.value, depth + 1, seen, budget) : '[Getter]';
}

/** Text of `value` of about `budget` characters at most. */
export function formatValue(value: unknown, budget: number): string {
  try {
    return format(
      value,
      0,
      create(null) as Record<number, unknown>,
      { __proto__: null, nodes: 0, length: 0, budget } as FormatBudget,
    );
  } catch {
    return '[unprintable value]';
  }
}

export interface Thrown {
  readonly text: string;
  readonly stack: string | undefined;
  /** V8's own message when an ArrayBuffer could not be allocated (the heap limit). */
  readonly memory: boolean;
}

export function describeThrown(value: unknown): Thrown {
  try {
    if (value !== null && (typeof value === 'object' || typeof value === 'function') && isErrorLike(value)) {
      const info = errorInfo(value);
      return {
        __proto__: null,
        text: info.text,
        stack: info.stack,
        memory: info.name === 'RangeError' && info.message === 'Array buffer allocation failed',
      } as Thrown;
    }
    return {
      __proto__: null,
      text: cut('Uncaught ' + formatValue(value, 2000), 2000),
      stack: undefined,
      memory: false,
    } as Thrown;
  } catch {
    return {
      __proto__: null,
      text: 'Uncaught exception (the thrown value could not be described)',
      stack: undefined,
      memory: false,
    } as Thrown;
  }
}
