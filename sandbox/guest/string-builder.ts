// A string built from UTF-16 code units a chunk at a time (String.fromCharCode takes a
// bounded argument list); the chunk is a typed array, which no setter the program plants
// on Array.prototype can see.
import { apply } from './intrinsics.ts';

const fromCharCode = String.fromCharCode;
const Uint16 = Uint16Array;
const CHUNK = 8192;

export class StringBuilder {
  #text = '';
  #units = new Uint16(CHUNK);
  #count = 0;
  add(unit: number): void {
    this.#units[this.#count] = unit;
    if (++this.#count === CHUNK) this.#flush();
  }
  #flush(): void {
    if (this.#count === 0) return;
    const units = this.#count === CHUNK ? this.#units : new Uint16(this.#units.buffer, 0, this.#count);
    this.#text += apply(fromCharCode, undefined, units as unknown as number[]) as string;
    this.#count = 0;
  }
  done(): string {
    this.#flush();
    return this.#text;
  }
}
