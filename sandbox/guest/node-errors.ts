// Node's argument errors (TypeError/RangeError with a `code`), worded as Node words them,
// for the web globals' argument checks: a program that catches one sees what it would
// see in Node.
import {
  apply,
  defineProperty,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  own,
  RangeErrorCtor,
  stringify,
  TypeErrorCtor,
} from './intrinsics.ts';

function withCode<T extends Error>(error: T, code: string): T {
  defineProperty(error, 'code', { value: code, writable: true, enumerable: true, configurable: true });
  return error;
}

/** Node's `Received ...` tail for a value of the wrong type. */
export function received(value: unknown): string {
  if (value === null || value === undefined) return ' Received ' + value;
  if (typeof value === 'function') {
    const name = own(value, 'name');
    return typeof name === 'string' && name !== '' ? ' Received function ' + name : ' Received function';
  }
  if (typeof value === 'object') {
    const proto = getPrototypeOf(value) as object | null;
    const ctor = proto === null ? undefined : getOwnPropertyDescriptor(proto, 'constructor')?.value;
    const name = typeof ctor === 'function' ? own(ctor, 'name') : undefined;
    return typeof name === 'string' && name !== ''
      ? ' Received an instance of ' + name
      : ' Received ' + (proto === null ? '[Object: null prototype]' : 'an object');
  }
  let shown: string;
  if (typeof value === 'string') {
    const cut = value.length > 28 ? apply(String.prototype.slice, value, [0, 25]) + '...' : value;
    shown = "'" + cut + "'";
  } else if (typeof value === 'bigint') shown = value + 'n';
  else if (typeof value === 'symbol') shown = apply(Symbol.prototype.toString, value, []);
  else shown = value === 0 && 1 / (value as number) < 0 ? '-0' : '' + (value as number | boolean);
  return ' Received type ' + typeof value + ' (' + shown + ')';
}

/** TypeError [ERR_INVALID_ARG_TYPE]: The "name" argument must be of type what. Received ... */
export function invalidArgType(name: string, what: string, value: unknown): TypeError {
  return withCode(
    new TypeErrorCtor('The "' + name + '" argument must be ' + what + '.' + received(value)),
    'ERR_INVALID_ARG_TYPE',
  );
}

/** TypeError [code] with Node's message. */
export function nodeTypeError(code: string, message: string): TypeError {
  return withCode(new TypeErrorCtor(message), code);
}

/** RangeError [code] with Node's message. */
export function nodeRangeError(code: string, message: string): RangeError {
  return withCode(new RangeErrorCtor(message), code);
}

/** TypeError [ERR_MISSING_ARGS]: The "name" argument must be specified */
export function missingArgs(name: string): TypeError {
  return nodeTypeError('ERR_MISSING_ARGS', 'The "' + name + '" argument must be specified');
}

/** RangeError [ERR_OUT_OF_RANGE] */
export function outOfRange(name: string, range: string, value: unknown): RangeError {
  const shown = typeof value === 'string' ? stringify(value) : '' + (value as number);
  return nodeRangeError(
    'ERR_OUT_OF_RANGE',
    'The value of "' + name + '" is out of range. It must be ' + range + '. Received ' + shown,
  );
}
