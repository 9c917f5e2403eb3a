// DOMException as Node has it (V8 has none): the errors the web globals throw
// (AbortError, TimeoutError, DataCloneError, QuotaExceededError, ...) with their legacy
// codes. name, message and code are own data properties, so the sandbox's error
// reporting (which never calls getters) names them.
import { create, defineProperty, ErrorCtor, freeze, getOwnPropertyDescriptor } from './intrinsics.ts';

const LEGACY_CODES: readonly (readonly [string, string])[] = [
  ['IndexSizeError', 'INDEX_SIZE_ERR'],
  ['', 'DOMSTRING_SIZE_ERR'],
  ['HierarchyRequestError', 'HIERARCHY_REQUEST_ERR'],
  ['WrongDocumentError', 'WRONG_DOCUMENT_ERR'],
  ['InvalidCharacterError', 'INVALID_CHARACTER_ERR'],
  ['', 'NO_DATA_ALLOWED_ERR'],
  ['NoModificationAllowedError', 'NO_MODIFICATION_ALLOWED_ERR'],
  ['NotFoundError', 'NOT_FOUND_ERR'],
  ['NotSupportedError', 'NOT_SUPPORTED_ERR'],
  ['InUseAttributeError', 'INUSE_ATTRIBUTE_ERR'],
  ['InvalidStateError', 'INVALID_STATE_ERR'],
  ['SyntaxError', 'SYNTAX_ERR'],
  ['InvalidModificationError', 'INVALID_MODIFICATION_ERR'],
  ['NamespaceError', 'NAMESPACE_ERR'],
  ['InvalidAccessError', 'INVALID_ACCESS_ERR'],
  ['', 'VALIDATION_ERR'],
  ['TypeMismatchError', 'TYPE_MISMATCH_ERR'],
  ['SecurityError', 'SECURITY_ERR'],
  ['NetworkError', 'NETWORK_ERR'],
  ['AbortError', 'ABORT_ERR'],
  ['URLMismatchError', 'URL_MISMATCH_ERR'],
  ['QuotaExceededError', 'QUOTA_EXCEEDED_ERR'],
  ['TimeoutError', 'TIMEOUT_ERR'],
  ['InvalidNodeTypeError', 'INVALID_NODE_TYPE_ERR'],
  ['DataCloneError', 'DATA_CLONE_ERR'],
];

const codeOfName = create(null) as Record<string, number>;
for (let i = 0; i < LEGACY_CODES.length; i++) {
  const name = (LEGACY_CODES[i] as readonly [string, string])[0];
  if (name !== '') codeOfName[name] = i + 1;
}

export class DOMException extends ErrorCtor {
  declare readonly code: number;
  constructor(message?: unknown, options?: unknown) {
    super(message === undefined ? '' : '' + (message as string));
    let name = 'Error';
    let cause: unknown;
    let hasCause = false;
    if (options !== null && typeof options === 'object') {
      const named = (options as { name?: unknown }).name;
      if (named !== undefined) name = '' + (named as string);
      if ('cause' in options) {
        hasCause = true;
        cause = (options as { cause?: unknown }).cause;
      }
    } else if (options !== undefined) {
      name = '' + (options as string);
    }
    defineProperty(this, 'name', { value: name, writable: true, configurable: true });
    defineProperty(this, 'code', { value: codeOfName[name] ?? 0, writable: true, configurable: true });
    if (hasCause) defineProperty(this, 'cause', { value: cause, writable: true, configurable: true });
  }
}
defineProperty(DOMException.prototype, Symbol.toStringTag, { value: 'DOMException', configurable: true });
// Each constant added to the class and its prototype as they are would copy their
// property descriptors anew (~75 us a fresh isolate for the 50): a property added and
// deleted first turns both into dictionary mode, where each constant is one insert. What a
// program sees (names, order, descriptors) is the same.
const probed = DOMException as unknown as Record<string, unknown>;
const probedProto = DOMException.prototype as unknown as Record<string, unknown>;
probed['__ptc_probe'] = 0;
delete probed['__ptc_probe'];
probedProto['__ptc_probe'] = 0;
delete probedProto['__ptc_probe'];
for (let i = 0; i < LEGACY_CODES.length; i++) {
  const constant = { value: i + 1, enumerable: true };
  const key = (LEGACY_CODES[i] as readonly [string, string])[1];
  defineProperty(DOMException, key, constant);
  defineProperty(DOMException.prototype, key, constant);
}
freeze(LEGACY_CODES);

// Node 26 has QuotaExceededError as its own DOMException subclass (WebIDL), with quota and
// requested (null unless given); Node 24 throws a plain DOMException of that name. The
// guest installs the class only on the Node line that has it (installNodeLineGlobals).
function quotaOption(options: unknown, key: 'quota' | 'requested'): number | null {
  if (options === null || typeof options !== 'object') return null;
  const value = (options as Record<string, unknown>)[key];
  if (value === undefined || value === null) return null;
  const number = +(value as number);
  // NaN and ±Infinity are the values whose difference with themselves is not 0.
  if (number - number !== 0) {
    throw new TypeError(`Cannot convert options.${key} to a double: the value is ${number}`);
  }
  if (number < 0) throw new RangeError(`options.${key} must not be negative`);
  return number;
}
export class QuotaExceededError extends DOMException {
  #quota: number | null;
  #requested: number | null;
  constructor(message?: unknown, options?: unknown) {
    super(message, 'QuotaExceededError');
    const quota = quotaOption(options, 'quota');
    const requested = quotaOption(options, 'requested');
    if (quota !== null && requested !== null && requested <= quota) {
      throw new RangeError('options.requested must be greater than options.quota');
    }
    this.#quota = quota;
    this.#requested = requested;
  }
  get quota(): number | null {
    return this.#quota;
  }
  get requested(): number | null {
    return this.#requested;
  }
}
for (let i = 0; i < 2; i++) {
  const key = i === 0 ? 'quota' : 'requested';
  const descriptor = getOwnPropertyDescriptor(QuotaExceededError.prototype, key);
  if (descriptor !== undefined) {
    descriptor.enumerable = true;
    defineProperty(QuotaExceededError.prototype, key, descriptor);
  }
}

defineProperty(QuotaExceededError.prototype, Symbol.toStringTag, { value: 'QuotaExceededError', configurable: true });

/** The quota error the web globals throw, in the form of the Node line the guest follows. */
export function quotaExceeded(message: string, nodeMajor: number): DOMException {
  return nodeMajor >= 26 ? new QuotaExceededError(message) : new DOMException(message, 'QuotaExceededError');
}

/** A DOMException with `name`, as the web globals throw them. */
export function domException(message: string, name: string): DOMException {
  return new DOMException(message, name);
}
