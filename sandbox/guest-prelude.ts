// The JavaScript evaluated in every guest context before the program. It builds the
// only things a program sees (`tools`, `ToolCallError`, `console`), enforces the
// budgets that stop damage early (calls, in-flight calls, log bytes, result size,
// resizable buffers), and speaks to the host with JSON strings only:
//   guest -> host: one ignored isolated-vm Callback, captured here and deleted from the global;
//   host -> guest: `deliver(json)` and `configure(json)`, referenced by the host then deleted.
// The program's final outcome is computed and formatted here, under try/catch, so the
// host never reads a guest object (looping getters, Proxies and non-Errors stay inside).
// Intrinsics are captured before the program runs: a program that patches built-ins only
// breaks its own run, and the host re-checks every budget anyway.

/** Global the host installs before the prelude (deleted by the prelude). */
export const SEND_GLOBAL = '__ptc_send';
/** Globals the prelude defines for the host to reference (the host deletes them). */
export const CONFIGURE_GLOBAL = '__ptc_configure';
export const DELIVER_GLOBAL = '__ptc_deliver';

/** What `configure(json)` receives. */
export interface GuestConfig {
  readonly tools: readonly string[];
  readonly maxCalls: number;
  readonly maxConcurrentCalls: number;
  readonly maxLogBytes: number;
  readonly maxLogLines: number;
  /** What one log line costs at least against maxLogBytes. */
  readonly logLineMinBytes: number;
  readonly maxResultBytes: number;
  readonly maxArgsBytes: number;
  /**
   * Memory outside the V8 heap the program may claim, which isolated-vm's heap limit
   * does not see: `maxByteLength` of resizable ArrayBuffers plus an estimate for every
   * Intl formatter (each owns ICU memory; Intl.Segmenter and Intl.Locale are removed).
   */
  readonly offHeapBytes: number;
}

/** Guest -> host messages (JSON). */
export type GuestMessage =
  | { readonly t: 'call'; readonly seq: number; readonly tool: string; readonly args: string }
  | { readonly t: 'log'; readonly text: string }
  | { readonly t: 'logs-truncated'; readonly by: 'bytes' | 'lines' }
  | { readonly t: 'limit'; readonly kind: 'call-limit' | 'memory' | 'exception'; readonly message: string }
  | { readonly t: 'done'; readonly ok: true; readonly result?: string }
  | {
      readonly t: 'done';
      readonly ok: false;
      readonly kind: 'exception' | 'memory' | 'output-limit' | 'invalid-output';
      readonly message: string;
      readonly stack?: string;
    };

/** Host -> guest `deliver` payload (JSON). */
export type GuestDelivery =
  | { readonly seq: number; readonly ok: true; readonly value: string }
  | { readonly seq: number; readonly ok: false; readonly code: string; readonly message: string };

export const GUEST_PRELUDE_SOURCE = String.raw`(function () {
'use strict';
const global = globalThis;
const send = global.__ptc_send;
delete global.__ptc_send;

// ---- captured intrinsics -------------------------------------------------------
const ObjectCtor = Object;
const create = ObjectCtor.create;
const defineProperty = ObjectCtor.defineProperty;
const freeze = ObjectCtor.freeze;
const getOwnPropertyDescriptor = ObjectCtor.getOwnPropertyDescriptor;
const getPrototypeOf = ObjectCtor.getPrototypeOf;
const objectIs = ObjectCtor.is;
const objectKeys = ObjectCtor.keys;
const getOwnPropertyNames = ObjectCtor.getOwnPropertyNames;
const getOwnPropertySymbols = ObjectCtor.getOwnPropertySymbols;
const propertyIsEnumerable = ObjectCtor.prototype.propertyIsEnumerable;
const ObjectProto = ObjectCtor.prototype;
const hasOwn = ObjectProto.hasOwnProperty;
const apply = Reflect.apply;
const construct = Reflect.construct;
const stringify = JSON.stringify;
const parse = JSON.parse;
const PromiseCtor = Promise;
const promiseThen = PromiseCtor.prototype.then;
const isArray = Array.isArray;
const isFiniteNumber = Number.isFinite;
const NumberCtor = Number;
const charCodeAt = String.prototype.charCodeAt;
const stringSlice = String.prototype.slice;
const symbolToString = Symbol.prototype.toString;
const ErrorCtor = Error;
const ErrorProto = ErrorCtor.prototype;
const RangeErrorCtor = RangeError;
const TypeErrorCtor = TypeError;
const stackDescriptor = getOwnPropertyDescriptor(new ErrorCtor('probe'), 'stack');
const stackGetter = stackDescriptor === undefined ? undefined : stackDescriptor.get;
const ArrayBufferCtor = ArrayBuffer;
const arrayBufferProto = ArrayBufferCtor.prototype;
const mapForEach = Map.prototype.forEach;
const setForEach = Set.prototype.forEach;
const mapSize = getOwnPropertyDescriptor(Map.prototype, 'size').get;
const setSize = getOwnPropertyDescriptor(Set.prototype, 'size').get;
const MapProto = Map.prototype;
const SetProto = Set.prototype;
const LOSSY = [
  [MapProto, 'a Map (convert it with Object.fromEntries(map) or [...map])'],
  [SetProto, 'a Set (convert it with [...set])'],
  [WeakMap.prototype, 'a WeakMap'],
  [WeakSet.prototype, 'a WeakSet'],
  [WeakRef.prototype, 'a WeakRef'],
  [PromiseCtor.prototype, 'a Promise (did you forget await?)'],
  [RegExp.prototype, 'a RegExp'],
  [ErrorProto, 'an Error (return its message instead)'],
  [arrayBufferProto, 'an ArrayBuffer'],
  [getPrototypeOf(Uint8Array.prototype), 'a typed array (convert it with Array.from)'],
  [DataView.prototype, 'a DataView'],
  [Symbol.prototype, 'a Symbol object'],
  [NumberCtor.prototype, 'a Number object'],
  [String.prototype, 'a String object'],
  [Boolean.prototype, 'a Boolean object'],
  [Function.prototype, 'a function'],
  [Date.prototype, 'a Date (send date.toISOString() or a number)'],
];

// ---- run state -----------------------------------------------------------------
let configured = false;
let started = false;
let settled = false;
let maxCalls = 0;
let maxConcurrent = 1;
let maxLogBytes = 0;
let maxLogLines = 0;
let logLineMinBytes = 0;
let logLines = 0;
let maxResultBytes = 0;
let maxArgsBytes = 0;
let offHeapLeft = 0;
let offHeapTotal = 0;
let calls = 0;
let inFlight = 0;
let logBytes = 0;
let logsClosed = false;
// Null-prototype records, never arrays: an index setter planted on Array.prototype by
// the program must not intercept the prelude's own bookkeeping.
const pending = create(null);
const queue = create(null);
let queueHead = 0;
let queueTail = 0;

function own(object, key) {
  return apply(hasOwn, object, [key]) ? object[key] : undefined;
}

// True when the message was handed to the host. It fails only when the program made the
// call with (almost) no stack left; the caller then refuses the call inside the program.
function post(message) {
  try {
    send(stringify(message));
    return true;
  } catch (error) {
    return false;
  }
}

function fatal(kind, message) {
  if (settled) return;
  settled = true;
  post({ __proto__: null, t: 'limit', kind: kind, message: message });
}

function cut(text, max) {
  return text.length > max ? apply(stringSlice, text, [0, max]) : text;
}

// UTF-8 length of text, and the longest prefix of text that fits in budget bytes.
function utf8Prefix(text, budget) {
  let bytes = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = apply(charCodeAt, text, [i]);
    let size = 3;
    let width = 1;
    if (c < 0x80) size = 1;
    else if (c < 0x800) size = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < length) {
      const d = apply(charCodeAt, text, [i + 1]);
      if (d >= 0xdc00 && d <= 0xdfff) { size = 4; width = 2; }
    }
    if (bytes + size > budget) return { __proto__: null, bytes: bytes, end: i, whole: false };
    bytes += size;
    i += width - 1;
  }
  return { __proto__: null, bytes: bytes, end: length, whole: true };
}

// ---- compact formatting (logs, non-Error thrown values); never runs getters --------
function protoLabel(value) {
  let proto = getPrototypeOf(value);
  for (let depth = 0; depth < 32 && proto !== null; depth++) {
    if (proto === ObjectProto) return undefined;
    for (let i = 0; i < LOSSY.length; i++) {
      if (LOSSY[i][0] === proto) return LOSSY[i][1];
    }
    proto = getPrototypeOf(proto);
  }
  return undefined;
}

function isErrorLike(value) {
  let proto = getPrototypeOf(value);
  for (let depth = 0; depth < 32 && proto !== null; depth++) {
    if (proto === ErrorProto) return true;
    proto = getPrototypeOf(proto);
  }
  return false;
}

// Reads a data property along the prototype chain; accessors are reported, never called.
function dataProperty(value, key) {
  let target = value;
  for (let depth = 0; depth < 32 && target !== null; depth++) {
    const desc = getOwnPropertyDescriptor(target, key);
    if (desc !== undefined) {
      if (apply(hasOwn, desc, ['value'])) return { __proto__: null, found: true, accessor: false, value: desc.value };
      return { __proto__: null, found: true, accessor: true, value: undefined };
    }
    target = getPrototypeOf(target);
  }
  return { __proto__: null, found: false, accessor: false, value: undefined };
}

function errorInfo(error) {
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
  let stack;
  if (!name.accessor && !message.accessor && stackGetter !== undefined) {
    const desc = getOwnPropertyDescriptor(error, 'stack');
    if (desc !== undefined && own(desc, 'get') === stackGetter) {
      try {
        const value = apply(stackGetter, error, []);
        if (typeof value === 'string') stack = cut(value, 4000);
      } catch (ignored) {
        stack = undefined;
      }
    }
  }
  return { __proto__: null, name: nameText, message: messageText, text: cut(text, 2000), stack: stack };
}

function functionName(fn) {
  const desc = getOwnPropertyDescriptor(fn, 'name');
  const name = desc !== undefined ? own(desc, 'value') : undefined;
  return typeof name === 'string' && name !== '' ? ' ' + name : '';
}

function format(value, depth, seen, state) {
  state.nodes++;
  if (state.nodes > 2000 || state.length > state.budget) return '...';
  const type = typeof value;
  if (type === 'string') return depth === 0 ? value : stringify(value);
  if (type === 'number') return value === 0 && 1 / value < 0 ? '-0' : '' + value;
  if (type === 'bigint') return '' + value + 'n';
  if (type === 'boolean' || value === undefined || value === null) return '' + value;
  if (type === 'symbol') return apply(symbolToString, value, []);
  if (type === 'function') return '[Function' + functionName(value) + ']';
  for (let i = 0; i < depth; i++) if (seen[i] === value) return '[Circular]';
  if (isErrorLike(value)) return errorInfo(value).text;
  if (depth >= 4) return isArray(value) ? '[Array]' : '[Object]';
  seen[depth] = value;
  let out;
  if (isArray(value)) {
    out = '[';
    const length = value.length;
    for (let i = 0; i < length; i++) {
      if (i >= 100) { out += ',... ' + (length - 100) + ' more'; break; }
      const desc = getOwnPropertyDescriptor(value, i);
      const item = desc === undefined ? 'undefined' : apply(hasOwn, desc, ['value']) ? format(desc.value, depth + 1, seen, state) : '[Getter]';
      out += (i === 0 ? '' : ',') + item;
      state.length += item.length;
      if (state.length > state.budget) break;
    }
    return out + ']';
  }
  const proto = getPrototypeOf(value);
  if (proto === MapProto || proto === SetProto) {
    const isMap = proto === MapProto;
    out = (isMap ? 'Map(' + apply(mapSize, value, []) : 'Set(' + apply(setSize, value, [])) + ') {';
    let count = 0;
    const visit = function (item, key) {
      count++;
      if (count > 20 || state.length > state.budget) return;
      const text = (isMap ? format(key, depth + 1, seen, state) + ' => ' : '') + format(item, depth + 1, seen, state);
      out += (count === 1 ? '' : ',') + text;
      state.length += text.length;
    };
    apply(isMap ? mapForEach : setForEach, value, [visit]);
    return out + (count > 20 ? ',...}' : '}');
  }
  out = '{';
  const keys = objectKeys(value);
  for (let i = 0; i < keys.length; i++) {
    if (i >= 100) { out += ',... ' + (keys.length - 100) + ' more'; break; }
    const key = keys[i];
    const desc = getOwnPropertyDescriptor(value, key);
    const item = desc === undefined ? 'undefined' : apply(hasOwn, desc, ['value']) ? format(desc.value, depth + 1, seen, state) : '[Getter]';
    const text = stringify(key) + ':' + item;
    out += (i === 0 ? '' : ',') + text;
    state.length += text.length;
    if (state.length > state.budget) break;
  }
  return out + '}';
}

function formatValue(value, budget) {
  try {
    return format(value, 0, create(null), { __proto__: null, nodes: 0, length: 0, budget: budget });
  } catch (error) {
    return '[unprintable value]';
  }
}

function describeThrown(value) {
  try {
    if (value !== null && (typeof value === 'object' || typeof value === 'function') && isErrorLike(value)) {
      const info = errorInfo(value);
      return {
        __proto__: null,
        text: info.text,
        stack: info.stack,
        memory: info.name === 'RangeError' && info.message === 'Array buffer allocation failed',
      };
    }
    return { __proto__: null, text: cut('Uncaught ' + formatValue(value, 2000), 2000), stack: undefined, memory: false };
  } catch (error) {
    return { __proto__: null, text: 'Uncaught exception (the thrown value could not be described)', stack: undefined, memory: false };
  }
}

// ---- strict JSON serialization (tool arguments, returned value) ---------------------
function problem(reason, tooLarge) {
  return { __proto__: null, isProblem: true, reason: reason, tooLarge: tooLarge, path: '' };
}

function isProblem(error) {
  return error !== null && typeof error === 'object' && getPrototypeOf(error) === null && error.isProblem === true;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function pathSegment(key) {
  if (typeof key === 'number') return '[' + key + ']';
  return IDENTIFIER.exec(key) !== null ? '.' + key : '[' + stringify(key) + ']';
}

// Lossless only: no toJSON conversions, no getters, no class instances,
// no holes; what crosses is exactly the plain data the program built.
function ownData(value, key) {
  const descriptor = getOwnPropertyDescriptor(value, key);
  if (descriptor === undefined) return { __proto__: null, missing: true, value: undefined };
  // Own-property checks only: Object.prototype may have been polluted by the program.
  if (!apply(hasOwn, descriptor, ['value'])) throw problem('an accessor property (getter/setter); JSON has only plain values', false);
  // A Proxy can answer a read differently from its own data: send neither.
  if (!objectIs(value[key], descriptor.value)) throw problem('an object whose reads disagree with its own data (a Proxy?)', false);
  return { __proto__: null, missing: false, value: descriptor.value };
}

// JSON carries only the enumerable string-keyed data of a plain object, and only the
// elements of an array: anything else on them would be dropped, so it is refused.
function checkNothingHidden(value) {
  if (getOwnPropertySymbols(value).length > 0) throw problem('a symbol-keyed property, which JSON cannot carry', false);
  const names = getOwnPropertyNames(value);
  if (isArray(value)) {
    if (names.length === value.length + 1) return;
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      if (name !== 'length' && !(name === '' + NumberCtor(name) && NumberCtor(name) >= 0 && NumberCtor(name) < value.length)) {
        throw problem('an array with an extra property ' + stringify(cut(name, 100)) + ', which JSON cannot carry', false);
      }
    }
    return;
  }
  for (let i = 0; i < names.length; i++) {
    if (!apply(propertyIsEnumerable, value, [names[i]])) {
      throw problem('a non-enumerable property ' + stringify(cut(names[i], 100)) + ', which JSON cannot carry', false);
    }
  }
}

function serialize(value, key, state, depth) {
  const type = typeof value;
  if (type === 'string') {
    const text = stringify(value);
    state.size += text.length;
    if (state.size > state.budget) throw problem('', true);
    return text;
  }
  if (type === 'number') {
    if (!isFiniteNumber(value)) throw problem('a non-finite number (' + value + ')', false);
    // JSON text can carry -0 (JSON.parse reads it back), though JSON.stringify writes 0.
    const text = value === 0 && 1 / value < 0 ? '-0' : stringify(value);
    state.size += text.length;
    return text;
  }
  if (type === 'boolean') { state.size += 5; return value ? 'true' : 'false'; }
  if (type === 'undefined') return undefined;
  if (type === 'bigint') throw problem('a BigInt (convert it with String or Number)', false);
  if (type === 'symbol') throw problem('a symbol', false);
  if (type === 'function') throw problem('a function', false);
  if (value === null) { state.size += 4; return 'null'; }
  for (let i = 0; i < depth; i++) if (state.seen[i] === value) throw problem('a circular reference', false);
  if (depth >= 256) throw problem('nesting deeper than 256 levels', false);
  const label = protoLabel(value);
  if (label !== undefined) throw problem(label, false);
  if (!isArray(value)) {
    const proto = getPrototypeOf(value);
    if (proto !== ObjectProto && proto !== null) throw problem('an instance of a class (only plain objects and arrays are JSON)', false);
  }
  checkNothingHidden(value);
  state.seen[depth] = value;
  let out;
  let current;
  try {
    if (isArray(value)) {
      out = '[';
      const length = value.length;
      for (let i = 0; i < length; i++) {
        current = i;
        const slot = ownData(value, '' + i);
        if (slot.missing) throw problem('an array hole (JSON arrays have no holes)', false);
        const item = serialize(slot.value, i, state, depth + 1);
        if (item === undefined) throw problem('undefined (JSON has no undefined; use null)', false);
        out += (i === 0 ? '' : ',') + item;
        state.size += 1;
        if (state.size > state.budget) throw problem('', true);
      }
      out += ']';
    } else {
      out = '{';
      const keys = objectKeys(value);
      let first = true;
      for (let i = 0; i < keys.length; i++) {
        current = keys[i];
        const slot = ownData(value, current);
        if (slot.missing) continue;
        const item = serialize(slot.value, current, state, depth + 1);
        if (item === undefined) continue;
        const quoted = stringify(current);
        out += (first ? '' : ',') + quoted + ':' + item;
        first = false;
        state.size += quoted.length + 2;
        if (state.size > state.budget) throw problem('', true);
      }
      out += '}';
    }
  } catch (error) {
    if (isProblem(error) && current !== undefined && !error.tooLarge) error.path = pathSegment(current) + error.path;
    throw error;
  }
  state.seen[depth] = undefined;
  return out;
}

function toJson(value, budget) {
  return serialize(value, '', { __proto__: null, size: 0, budget: budget, seen: create(null) }, 0);
}

// ---- ToolCallError, tools, console --------------------------------------------------
class ToolCallError extends ErrorCtor {
  constructor(toolName, code, message) {
    super(message);
    defineProperty(this, 'toolName', { value: '' + toolName, writable: true, enumerable: true, configurable: true });
    defineProperty(this, 'code', { value: '' + code, writable: true, enumerable: true, configurable: true });
  }
}
defineProperty(ToolCallError.prototype, 'name', { value: 'ToolCallError', writable: true, enumerable: false, configurable: true });

function rejected(error) {
  return new PromiseCtor(function (resolve, reject) { reject(error); });
}

function dispatch(item) {
  if (!post({ __proto__: null, t: 'call', seq: item.seq, tool: item.name, args: item.args })) return false;
  inFlight++;
  return true;
}

function pump() {
  while (!settled && inFlight < maxConcurrent && queueHead < queueTail) {
    const item = queue[queueHead];
    queue[queueHead] = undefined;
    queueHead++;
    if (!dispatch(item)) {
      // Later calls already hold later numbers, so this one cannot be given back: the run fails.
      notSent(item);
      fatal('exception', 'tools.' + item.name + ' call #' + item.seq + ' could not be sent to the host');
    }
  }
}

function notSent(item) {
  const entry = pending[item.seq];
  delete pending[item.seq];
  if (entry !== undefined) {
    entry.reject(new ToolCallError(item.name, 'NOT_DISPATCHED', 'tools.' + item.name + ' could not be sent (was it called with the stack nearly exhausted, e.g. deep in a recursion?): not dispatched'));
  }
}

function submit(name, args) {
  if (settled) {
    return rejected(new ToolCallError(name, 'NOT_DISPATCHED', 'tools.' + name + ' was called after the program finished: not dispatched'));
  }
  let json;
  try {
    json = toJson(args === undefined ? {} : args, maxArgsBytes);
  } catch (error) {
    if (isProblem(error)) {
      if (error.tooLarge) {
        return rejected(new ToolCallError(name, 'ARGS_TOO_LARGE', 'tools.' + name + ' arguments are larger than ' + maxArgsBytes + ' bytes as JSON: not dispatched'));
      }
      return rejected(new ToolCallError(name, 'INVALID_ARGS', 'tools.' + name + ' arguments are not JSON: ' + error.reason + ' at args' + error.path + ': not dispatched'));
    }
    return rejected(new ToolCallError(name, 'INVALID_ARGS', 'tools.' + name + ' arguments could not be converted to JSON (' + describeThrown(error).text + '): not dispatched'));
  }
  if (json === undefined) json = '{}';
  if (settled) {
    return rejected(new ToolCallError(name, 'NOT_DISPATCHED', 'tools.' + name + ' was called after the program finished: not dispatched'));
  }
  calls++;
  if (calls > maxCalls) {
    const message = 'The program made more than ' + maxCalls + ' tool calls (the limit of one run).';
    fatal('call-limit', message);
    return rejected(new ToolCallError(name, 'CALL_LIMIT', message));
  }
  const seq = calls;
  let entry;
  const promise = new PromiseCtor(function (resolve, reject) {
    entry = { __proto__: null, name: name, resolve: resolve, reject: reject };
  });
  const item = { __proto__: null, seq: seq, name: name, args: json };
  pending[seq] = entry;
  if (inFlight >= maxConcurrent) {
    queue[queueTail++] = item;
  } else if (!dispatch(item)) {
    // Nothing crossed: the number is given back, so the host still sees calls in order.
    calls--;
    notSent(item);
  }
  return promise;
}

// A plain function returning a promise (behaves as an async function; its prototype
// chain is the ordinary Function.prototype).
function makeTool(name) {
  const tool = function (args) {
    try {
      return submit(name, args);
    } catch (error) {
      return rejected(error);
    }
  };
  defineProperty(tool, 'name', { value: name, configurable: true });
  return tool;
}

function deliver(text) {
  let message;
  try {
    message = parse(text);
  } catch (error) {
    return;
  }
  const seq = message.seq;
  const entry = pending[seq];
  if (entry === undefined) return;
  delete pending[seq];
  inFlight--;
  if (message.ok === true) {
    let value;
    let valid = true;
    try {
      value = parse(message.value);
    } catch (error) {
      valid = false;
    }
    if (valid) entry.resolve(value);
    else entry.reject(new ToolCallError(entry.name, 'INVALID_RESULT', 'tools.' + entry.name + ' returned a value that is not JSON'));
  } else {
    entry.reject(new ToolCallError(entry.name, '' + message.code, '' + message.message));
  }
  pump();
}

// Every line costs at least logLineMinBytes, and at most maxLogLines lines are sent: a
// flood of empty lines ends as surely as a flood of long ones.
function closeLogs(by) {
  logsClosed = true;
  post({ __proto__: null, t: 'logs-truncated', by: by });
}

function log(prefix, args) {
  if (logsClosed || settled) return;
  if (logLines >= maxLogLines) {
    closeLogs('lines');
    return;
  }
  const room = maxLogBytes - logBytes;
  let line = prefix;
  for (let i = 0; i < args.length; i++) {
    line += (i === 0 ? '' : ' ') + formatValue(args[i], room + 1);
    if (line.length > room) break;
  }
  const fit = utf8Prefix(cut(line, room + 1), room);
  const cost = fit.bytes > logLineMinBytes ? fit.bytes : logLineMinBytes;
  if (fit.whole && cost <= room) {
    logBytes += cost;
    logLines++;
    post({ __proto__: null, t: 'log', text: line });
    return;
  }
  if (!fit.whole && fit.end > 0 && room >= logLineMinBytes) post({ __proto__: null, t: 'log', text: apply(stringSlice, line, [0, fit.end]) });
  logBytes = maxLogBytes;
  closeLogs('bytes');
}

const sandboxConsole = {};
const LEVELS = [['log', ''], ['info', ''], ['warn', '[warn] '], ['error', '[error] '], ['debug', '[debug] ']];
for (let i = 0; i < LEVELS.length; i++) {
  const prefix = LEVELS[i][1];
  const method = function (...args) { log(prefix, args); };
  defineProperty(method, 'name', { value: LEVELS[i][0], configurable: true });
  defineProperty(sandboxConsole, LEVELS[i][0], { value: method, writable: true, enumerable: true, configurable: true });
}

// ---- off-heap memory: no Wasm, no shared memory, capped resizable buffers and Intl ----
// Charges an off-heap allocation to the run's budget; over budget, the run fails (memory).
function chargeOffHeap(bytes, what, advice) {
  if (bytes > offHeapLeft) {
    const message = what + ' is over the sandbox budget for memory outside the heap (' + offHeapLeft + ' of ' +
      offHeapTotal + ' bytes left)' + advice;
    fatal('memory', message);
    throw new RangeErrorCtor(message);
  }
  if (bytes > 0) offHeapLeft -= bytes;
}

function SandboxArrayBuffer(length, options) {
  if (new.target === undefined) throw new TypeErrorCtor("Constructor ArrayBuffer requires 'new'");
  if (options !== null && (typeof options === 'object' || typeof options === 'function')) {
    const requested = options.maxByteLength;
    if (requested !== undefined) {
      const max = NumberCtor(requested);
      chargeOffHeap(max, 'new ArrayBuffer(..., { maxByteLength: ' + max + ' })', '');
      return construct(ArrayBufferCtor, [length, { maxByteLength: max }], new.target);
    }
  }
  return construct(ArrayBufferCtor, [length], new.target);
}
defineProperty(SandboxArrayBuffer, 'prototype', { value: arrayBufferProto, writable: false });
defineProperty(SandboxArrayBuffer, 'name', { value: 'ArrayBuffer', configurable: true });
defineProperty(SandboxArrayBuffer, 'isView', { value: ArrayBufferCtor.isView, writable: true, configurable: true });
defineProperty(SandboxArrayBuffer, Symbol.species, getOwnPropertyDescriptor(ArrayBufferCtor, Symbol.species));
defineProperty(arrayBufferProto, 'constructor', { value: SandboxArrayBuffer, writable: true, configurable: true });
defineProperty(global, 'ArrayBuffer', { value: SandboxArrayBuffer, writable: true, configurable: true });

// Intl: the formatting classes stay, each charged for the ICU memory it owns (bytes
// measured on V8 12, rounded up), so a program that keeps hundreds of thousands of them
// fails with memory instead of filling gigabytes behind a small heap. Segmenter and Locale
// are removed: Segmenter#segment() copies its whole input into ICU memory and
// Locale#maximize() makes new ICU objects without a constructor call, neither of which a
// per-construction charge can see; a program has little use for either.
const INTL_REMOVED = ['Segmenter', 'Locale'];
const INTL_COSTS = { __proto__: null, DateTimeFormat: 28672, RelativeTimeFormat: 9216, PluralRules: 3072,
  Collator: 2048, DisplayNames: 2048, NumberFormat: 2048, ListFormat: 1024 };
const INTL_ADVICE = ' (create one Intl object and reuse it)';
const intl = global.Intl;
for (let i = 0; i < INTL_REMOVED.length; i++) delete intl[INTL_REMOVED[i]];
const intlNames = getOwnPropertyNames(intl);
for (let i = 0; i < intlNames.length; i++) {
  const name = intlNames[i];
  const Original = intl[name];
  if (typeof Original !== 'function' || typeof Original.prototype !== 'object') continue;
  const cost = INTL_COSTS[name] !== undefined ? INTL_COSTS[name] : 8192;
  const label = 'new Intl.' + name + '()';
  const Wrapped = function () {
    chargeOffHeap(cost, label, INTL_ADVICE);
    return new.target === undefined ? apply(Original, this, arguments) : construct(Original, arguments, new.target);
  };
  const keys = getOwnPropertyNames(Original);
  for (let k = 0; k < keys.length; k++) {
    if (keys[k] !== 'prototype') defineProperty(Wrapped, keys[k], getOwnPropertyDescriptor(Original, keys[k]));
  }
  defineProperty(Wrapped, 'prototype', { value: Original.prototype, writable: false });
  defineProperty(Original.prototype, 'constructor', { value: Wrapped, writable: true, configurable: true });
  defineProperty(intl, name, { value: Wrapped, writable: true, configurable: true });
}
delete global.WebAssembly;
delete global.SharedArrayBuffer;
delete global.Atomics;
delete global.console;

// ---- entry points ---------------------------------------------------------------------
function finish(ok, value) {
  if (settled) return;
  settled = true;
  queueHead = queueTail; // calls still waiting for a slot are abandoned, never dispatched
  if (!ok) {
    const thrown = describeThrown(value);
    post({ __proto__: null, t: 'done', ok: false, kind: thrown.memory ? 'memory' : 'exception', message: thrown.text, stack: thrown.stack });
    return;
  }
  if (value === undefined) {
    post({ __proto__: null, t: 'done', ok: true });
    return;
  }
  let json;
  try {
    json = toJson(value, maxResultBytes);
  } catch (error) {
    if (isProblem(error)) {
      if (error.tooLarge) {
        post({ __proto__: null, t: 'done', ok: false, kind: 'output-limit',
          message: 'The returned value is larger than ' + maxResultBytes + ' bytes as JSON (the result limit). Return less data, e.g. a summary or the first items.' });
      } else {
        post({ __proto__: null, t: 'done', ok: false, kind: 'invalid-output',
          message: 'The returned value is not JSON: ' + error.reason + ' at result' + error.path + '.' });
      }
    } else {
      post({ __proto__: null, t: 'done', ok: false, kind: 'invalid-output',
        message: 'Converting the returned value to JSON threw ' + describeThrown(error).text });
    }
    return;
  }
  post(json === undefined ? { __proto__: null, t: 'done', ok: true } : { __proto__: null, t: 'done', ok: true, result: json });
}

function start(program) {
  delete global.__ptc_start;
  if (!configured || started) return;
  started = true;
  try {
    const promise = program();
    apply(promiseThen, promise, [function (value) { finish(true, value); }, function (error) { finish(false, error); }]);
  } catch (error) {
    finish(false, error);
  }
}

function configure(text) {
  if (configured) return;
  configured = true;
  const config = parse(text);
  maxCalls = config.maxCalls;
  maxConcurrent = config.maxConcurrentCalls;
  maxLogBytes = config.maxLogBytes;
  maxLogLines = config.maxLogLines;
  logLineMinBytes = config.logLineMinBytes;
  maxResultBytes = config.maxResultBytes;
  maxArgsBytes = config.maxArgsBytes;
  offHeapLeft = config.offHeapBytes;
  offHeapTotal = config.offHeapBytes;
  const tools = create(null);
  const names = config.tools;
  for (let i = 0; i < names.length; i++) {
    defineProperty(tools, names[i], { value: makeTool(names[i]), enumerable: true });
  }
  freeze(tools);
  defineProperty(global, 'tools', { value: tools, writable: false, enumerable: false, configurable: false });
  defineProperty(global, 'ToolCallError', { value: ToolCallError, writable: true, enumerable: false, configurable: true });
  defineProperty(global, 'console', { value: sandboxConsole, writable: true, enumerable: false, configurable: true });
}

defineProperty(global, '__ptc_configure', { value: configure, configurable: true });
defineProperty(global, '__ptc_deliver', { value: deliver, configurable: true });
defineProperty(global, '__ptc_start', { value: start, configurable: true });
})();
`;
