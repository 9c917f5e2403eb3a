// A string built from UTF-16 code units a chunk at a time (String.fromCharCode takes a
// bounded argument list); the chunk is a typed array, which no setter the program plants
// on Array.prototype can see.
import { apply, defineProperty, getOwnPropertyDescriptor, getPrototypeOf } from './intrinsics.ts';

const fromCharCode = String.fromCharCode;
const Uint16 = Uint16Array;
const CHUNK = 8192;
const typedArrayBuffer = getOwnPropertyDescriptor(getPrototypeOf(Uint16.prototype) as object, 'buffer')
  ?.get as () => ArrayBuffer;

/**
 * A chunk of `count` units with its length as an own property: `apply` reads the length
 * of its argument list, and the typed arrays' own `length` getter is the program's to replace.
 */
function chunk(units: Uint16Array, count: number): Uint16Array {
  defineProperty(units, 'length', { value: count });
  return units;
}

export class StringBuilder {
  #text = '';
  #units = chunk(new Uint16(CHUNK), CHUNK);
  #count = 0;
  add(unit: number): void {
    this.#units[this.#count] = unit;
    if (++this.#count === CHUNK) this.#flush();
  }
  #flush(): void {
    if (this.#count === 0) return;
    const units =
      this.#count === CHUNK
        ? this.#units
        : chunk(new Uint16(apply(typedArrayBuffer, this.#units, []) as ArrayBuffer, 0, this.#count), this.#count);
    this.#text += apply(fromCharCode, undefined, units as unknown as number[]) as string;
    this.#count = 0;
  }
  done(): string {
    this.#flush();
    return this.#text;
  }
}
