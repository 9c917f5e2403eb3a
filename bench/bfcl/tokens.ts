// Token counts with a real offline tokenizer (o200k_base, js-tiktoken).
import { getEncoding, type Tiktoken } from 'js-tiktoken';

let encoding: Tiktoken | undefined;
const cache = new Map<string, number>();

export function countTokens(text: string): number {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  encoding ??= getEncoding('o200k_base');
  const n = encoding.encode(text).length;
  if (text.length > 200) cache.set(text, n);
  return n;
}
