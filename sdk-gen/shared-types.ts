// Structurally identical object types, declared once and named: `Order` for a tool that
// returns one order and another that lists them, `Address` for a `from`, a `to` and a
// `defaultAddress`. Two object types are the same when their TypeScript text is (doc
// comments and constraint tags included), so sharing one changes nothing a model reads.
// A documented property written the same way in several places (`/** Order id, e.g.
// '#W0000000'. *\/ order_id: string` in seven tools) shares the same way: its type is
// declared once with the doc comment (`type OrderId = string`) and the property names it.

/** Stands for a shared type while the SDK is written; no rendered text holds a NUL. */
const placeholder = (n: number): string => `\u0000${n}\u0000`;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the placeholder's NULs are the point
const PLACEHOLDER = /\u0000(\d+)\u0000/g;
// Rounds of "name the repeated types, render again": a shared type inside a shared type
// needs one round per level; past this, deeper repeats stay written out.
const MAX_ROUNDS = 8;

/** What one round saw: how often each object type was written, and under which name hints. */
interface Sightings {
  readonly count: Map<string, number>;
  readonly hints: Map<string, string[]>;
}

// Separates a documented type's doc comment from its type in the text offered for sharing.
const DOC_END = '\u0001';

/**
 * The text to offer `share` for a property's type and its doc comment (`/** … *\/ `), so
 * that the same documentation of the same type is declared once: `/** … *\/ type OrderId = string;`.
 */
export function documentedType(doc: string, type: string): string {
  return `${doc}${DOC_END}${type}`;
}

/** `type Name = …;`, a documented type's doc comment in front. */
function declaration(name: string, text: string): string {
  const end = text.indexOf(DOC_END);
  return end === -1 ? `type ${name} = ${text};` : `${text.slice(0, end)}type ${name} = ${text.slice(end + 1)};`;
}

const isDocumented = (text: string): boolean => text.includes(DOC_END);

/**
 * Whether declaring `text` once beats writing it `count` times: it must be an object
 * literal with at least two members (or documented ones), or a documented type, and
 * what it saves must exceed the declaration and the names that replace it (characters
 * as a proxy for tokens; a name is taken as 8 characters). A documented type must save
 * more (about ten tokens): the model follows a name to read a property's doc, which
 * is only worth it for a long doc or a much repeated one.
 */
function worthSharing(text: string, count: number): boolean {
  if (isDocumented(text)) return (count - 1) * (text.length - 1) > 60 + 8 * count;
  if (!text.startsWith('{') || !(text.includes(';') || text.includes('\n'))) return false;
  return (count - 1) * text.length > 24 + 8 * count;
}

/** The name most hints agree on; ties go to the longest, then the first met. */
function chooseName(hints: readonly string[]): string {
  const votes = new Map<string, number>();
  for (const hint of hints) votes.set(hint, (votes.get(hint) ?? 0) + 1);
  let best = hints[0] ?? 'Shared';
  for (const [hint, n] of votes) {
    const bestVotes = votes.get(best) ?? 0;
    if (n > bestVotes || (n === bestVotes && hint.length > best.length)) best = hint;
  }
  return best;
}

/** The type names a round declared, which shared names avoid (`add` claims one). */
export interface TypeNames {
  has(name: string): boolean;
  add(name: string): void;
}

/** One rendering of every tool, with `share` standing in for the object types named so far. */
export type RenderRound<T> = (share: (text: string, hint: string) => string | undefined) => T;

export interface SharedRendering<T> {
  /** The last round's output; its texts still hold placeholders, `resolve` turns them into names. */
  readonly value: T;
  /** Shared type declarations (`type Order = …;`), in order of first use in `texts`. */
  readonly declarations: readonly { readonly name: string; readonly text: string }[];
  /** A text of `value` with every placeholder replaced by its type's name. */
  resolve(text: string): string;
}

/**
 * Renders until no object type worth sharing is written twice. `texts(value)` lists
 * every text of a round's output in SDK order (it decides the declarations' order
 * and which shared types are used at all); `taken(value)` the type names the round
 * declared, which shared names avoid. A type no longer worth sharing once its parents
 * were shared (the lines of one `Order`, used only there) is banned and written in
 * place again.
 */
export function renderShared<T>(
  round: RenderRound<T>,
  texts: (value: T) => readonly string[],
  taken: (value: T) => TypeNames,
): SharedRendering<T> {
  const banned = new Set<string>();
  for (;;) {
    const keys = new Map<string, string>();
    let seen: Sightings = { count: new Map(), hints: new Map() };
    let value!: T;
    for (let rounds = 0; ; rounds++) {
      const current: Sightings = { count: new Map(), hints: new Map() };
      value = round((text, hint) => {
        const key = keys.get(text);
        const id = key ?? text;
        const hints = current.hints.get(id);
        if (hints === undefined) current.hints.set(id, [hint]);
        else hints.push(hint);
        if (key !== undefined) return key;
        current.count.set(text, (current.count.get(text) ?? 0) + 1);
        return undefined;
      });
      seen = current;
      const candidates = [...current.count].filter(
        ([text, count]) => count >= 2 && !banned.has(text) && worthSharing(text, count),
      );
      // Whole objects first: a documented property inside a shared object is written once already.
      const objects = candidates.filter(([text]) => !isDocumented(text));
      const fresh = objects.length > 0 ? objects : candidates;
      if (fresh.length === 0 || rounds >= MAX_ROUNDS) break;
      for (const [text] of fresh) keys.set(text, placeholder(keys.size));
    }
    const byPlaceholder = new Map([...keys].map(([text, key]) => [key, text]));
    // Uses in the tools' texts, then in the shared declarations they reach.
    const uses = new Map<string, number>();
    const order: string[] = [];
    const visit = (text: string): void => {
      for (const match of text.matchAll(PLACEHOLDER)) {
        const key = match[0];
        const n = (uses.get(key) ?? 0) + 1;
        uses.set(key, n);
        if (n === 1) {
          order.push(key);
          visit(byPlaceholder.get(key) ?? '');
        }
      }
    };
    for (const text of texts(value)) visit(text);
    // Counted by its uses in the final text (a type inside a shared one is written once
    // there, however often that one is used), a type may not be worth its name any more.
    const unworthy = order.filter((key) => !worthSharing(byPlaceholder.get(key) ?? '', uses.get(key) ?? 0));
    if (unworthy.length > 0) {
      for (const key of unworthy) banned.add(byPlaceholder.get(key) ?? '');
      continue;
    }
    const names = new Map<string, string>();
    const inUse = taken(value);
    for (const key of order) {
      const base = chooseName(seen.hints.get(key) ?? []);
      let name = base;
      for (let n = 2; inUse.has(name); n++) name = `${base}${n}`;
      inUse.add(name);
      names.set(key, name);
    }
    const resolve = (text: string): string => text.replace(PLACEHOLDER, (key) => names.get(key) ?? key);
    return {
      value,
      declarations: order.map((key) => ({
        name: names.get(key) ?? key,
        text: declaration(names.get(key) ?? key, resolve(byPlaceholder.get(key) ?? '')),
      })),
      resolve,
    };
  }
}
