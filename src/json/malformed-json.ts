// Providers hand tool arguments over as JSON text (OpenAI's `arguments`), and a model
// sometimes sends broken text (cut off at max_tokens, a stray quote). Passing the raw
// string on would be refused as "(root) must be object", which tells the model nothing;
// this marker makes the refusal say that the JSON itself is malformed.

/** Longest part of the model's text quoted back in the error. */
const EXCERPT_LENGTH = 120;

/** Arguments whose JSON text did not parse; the pipeline refuses it with INVALID_ARGS. */
export class MalformedJson {
  /** Why it did not parse, and the start of the text, for the model to fix its call. */
  readonly reason: string;
  constructor(text: string, error: unknown) {
    const why = error instanceof Error ? error.message : String(error);
    const excerpt = text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH)}…` : text;
    this.reason = `malformed JSON (${why}); the text began ${JSON.stringify(excerpt)}. Send the arguments as one JSON object`;
    Object.freeze(this);
  }
}

/** Parses the JSON text of a provider's tool arguments (blank text is `{}`); malformed text gives a {@link MalformedJson}. */
export function parseJsonArguments(text: string): unknown {
  // Some models send no text at all for a call without arguments.
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return new MalformedJson(text, error);
  }
}
