// Token counts with OpenAI's o200k_base encoding, offline: js-tiktoken ships the ranks
// (nothing is downloaded). Loaded on first use, so the CLI starts without them.
import type { Tiktoken } from 'js-tiktoken/lite';

/** Counts the tokens of a text. */
export type CountTokens = (text: string) => number;

let encoding: Promise<Tiktoken> | undefined;

/** The o200k_base token counter (the encoding of GPT-4o and later OpenAI models). */
export async function o200kCounter(): Promise<CountTokens> {
  encoding ??= (async () => {
    const [{ Tiktoken }, { default: ranks }] = await Promise.all([
      import('js-tiktoken/lite'),
      import('js-tiktoken/ranks/o200k_base'),
    ]);
    return new Tiktoken(ranks);
  })();
  const ready = await encoding;
  return (text) => ready.encode(text).length;
}
