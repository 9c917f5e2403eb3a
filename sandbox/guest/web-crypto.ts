// `crypto` as Node has it for what a program in a sandbox needs: getRandomValues (integer
// typed arrays, at most 65,536 bytes, as the Web Crypto spec bounds it), randomUUID (v4),
// and subtle.digest with SHA-1/256/384/512 (from @noble/hashes, loaded on first use).
// Other SubtleCrypto methods do not exist here (keys would need real key storage).
import {
  apply,
  ArrayBufferCtor,
  defineProperty,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  PromiseCtor,
  TypeErrorCtor,
} from './intrinsics.ts';
import { makeDigestHashes } from './digest-library.ts';
import { DOMException, quotaExceeded } from './dom-exception.ts';
import { randomUint32 } from './entropy.ts';
import { nodeTypeError } from './node-errors.ts';
import { run } from './run-state.ts';
import { bytesOf } from './text-codec.ts';

type Hash = (data: Uint8Array) => Uint8Array;
interface Hashes {
  readonly 'SHA-1': Hash;
  readonly 'SHA-256': Hash;
  readonly 'SHA-384': Hash;
  readonly 'SHA-512': Hash;
}
let hashes: Hashes | undefined;

function loadHashes(): Hashes {
  if (hashes === undefined) {
    const loaded = makeDigestHashes();
    hashes = {
      __proto__: null,
      'SHA-1': loaded.sha1,
      'SHA-256': loaded.sha256,
      'SHA-384': loaded.sha384,
      'SHA-512': loaded.sha512,
    } as Hashes;
  }
  return hashes;
}

const Uint8 = Uint8Array;
const TypedArrayProto = getPrototypeOf(Uint8Array.prototype) as object;
const typedArrayTag = getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag)?.get as () => string | undefined;
const typedArrayBuffer = getOwnPropertyDescriptor(TypedArrayProto, 'buffer')?.get as () => ArrayBuffer;
const typedArrayOffset = getOwnPropertyDescriptor(TypedArrayProto, 'byteOffset')?.get as () => number;
const typedArrayByteLength = getOwnPropertyDescriptor(TypedArrayProto, 'byteLength')?.get as () => number;
const typedArraySlice = (TypedArrayProto as { slice: () => Uint8Array }).slice;
const isView = ArrayBufferCtor.isView;
const INTEGER_ARRAYS = {
  __proto__: null,
  Int8Array: true,
  Uint8Array: true,
  Uint8ClampedArray: true,
  Int16Array: true,
  Uint16Array: true,
  Int32Array: true,
  Uint32Array: true,
  BigInt64Array: true,
  BigUint64Array: true,
} as unknown as Record<string, true>;
const MAX_RANDOM_BYTES = 65_536;
const HEX = '0123456789abcdef';

function tagOf(value: unknown): string | undefined {
  try {
    return apply(typedArrayTag, value, []) as string | undefined;
  } catch {
    return undefined;
  }
}

function fillRandom(bytes: Uint8Array): void {
  const length = bytes.length;
  for (let i = 0; i < length; i += 4) {
    let word = randomUint32();
    for (let k = 0; k < 4 && i + k < length; k++) {
      bytes[i + k] = word & 0xff;
      word >>>= 8;
    }
  }
}

function illegalConstructor(): TypeError {
  const error = new TypeErrorCtor('Illegal constructor');
  defineProperty(error, 'code', {
    value: 'ERR_ILLEGAL_CONSTRUCTOR',
    writable: true,
    enumerable: true,
    configurable: true,
  });
  return error;
}

let constructing = false;

export class SubtleCrypto {
  constructor() {
    if (!constructing) throw illegalConstructor();
  }
  digest(algorithm: unknown, data: unknown): Promise<ArrayBuffer> {
    // biome-ignore lint/complexity/noArguments: how many arguments were passed is observable (as in Node)
    const count = arguments.length;
    return new PromiseCtor<ArrayBuffer>((resolve) => {
      if (count < 2) {
        throw new TypeErrorCtor(
          "Failed to execute 'digest' on 'SubtleCrypto': 2 arguments required, but only " + count + ' present.',
        );
      }
      const name =
        typeof algorithm === 'string'
          ? algorithm
          : algorithm !== null && typeof algorithm === 'object'
            ? (algorithm as { name?: unknown }).name
            : undefined;
      if (algorithm !== null && typeof algorithm === 'object' && name === undefined) {
        throw new TypeErrorCtor(
          "Failed to execute 'digest' on 'SubtleCrypto': Algorithm: name: Missing required property",
        );
      }
      const view = bytesOf(data);
      if (view === undefined) {
        throw new TypeErrorCtor(
          "Failed to execute 'digest' on 'SubtleCrypto': 2nd argument is not instance of ArrayBuffer, Buffer, TypedArray, or DataView.",
        );
      }
      const key = apply(String.prototype.toUpperCase, '' + (name as string), []) as string;
      const hash =
        key === 'SHA-1' || key === 'SHA-256' || key === 'SHA-384' || key === 'SHA-512' ? loadHashes()[key] : undefined;
      if (hash === undefined) throw new DOMException('Unrecognized algorithm name', 'NotSupportedError');
      const copy = apply(typedArraySlice, view, []) as Uint8Array;
      const digest = hash(copy);
      resolve(
        digest.buffer.byteLength === digest.length
          ? (digest.buffer as ArrayBuffer)
          : ((apply(typedArraySlice, digest, []) as Uint8Array).buffer as ArrayBuffer),
      );
    });
  }
}
defineProperty(SubtleCrypto.prototype, Symbol.toStringTag, { value: 'SubtleCrypto', configurable: true });

export class Crypto {
  #subtle: SubtleCrypto;
  constructor() {
    if (!constructing) throw illegalConstructor();
    this.#subtle = new SubtleCrypto();
  }
  get subtle(): SubtleCrypto {
    return this.#subtle;
  }
  getRandomValues<T extends ArrayBufferView | null>(array: T): T {
    const tag = tagOf(array);
    if (tag === undefined || INTEGER_ARRAYS[tag] !== true) {
      // From Node 26 on, an argument that is no view at all (an array, null, a Proxy) fails
      // WebIDL's ArrayBufferView check first; Node 24 reports every wrong argument alike.
      if (run.nodeMajor >= 26 && !isView(array)) {
        throw nodeTypeError(
          'ERR_INVALID_ARG_TYPE',
          "Failed to execute 'getRandomValues' on 'Crypto': 1st argument is not an ArrayBufferView.",
        );
      }
      throw new DOMException('The data argument must be an integer-type TypedArray', 'TypeMismatchError');
    }
    const length = apply(typedArrayByteLength, array, []) as number;
    if (length > MAX_RANDOM_BYTES) {
      throw quotaExceeded('The requested length exceeds 65,536 bytes', run.nodeMajor);
    }
    fillRandom(
      new Uint8(
        apply(typedArrayBuffer, array, []) as ArrayBuffer,
        apply(typedArrayOffset, array, []) as number,
        length,
      ),
    );
    return array;
  }
  randomUUID(): string {
    const bytes = new Uint8(16);
    fillRandom(bytes);
    bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
    bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
    let out = '';
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) out += '-';
      const b = bytes[i] as number;
      out += (HEX[b >> 4] as string) + (HEX[b & 15] as string);
    }
    return out;
  }
}
defineProperty(Crypto.prototype, Symbol.toStringTag, { value: 'Crypto', configurable: true });

/** The one `crypto` object of the guest. */
export function makeCrypto(): Crypto {
  constructing = true;
  try {
    return new Crypto();
  } finally {
    constructing = false;
  }
}
