// Each BFCL function as a ptc tool, built the way a user importing outside tools would:
// the func doc's schema turned into JSON Schema (as upstream does for OpenAI/Anthropic
// tools) and passed to `defineJsonSchemaTool`. The body runs the method on the current
// session's instance of its class and logs upstream's result string for grading.
import { defineJsonSchemaTool, type JsonValue, type Tool } from '../../src/index.ts';
import type { BfclSchema, FuncDoc } from './data.ts';
import type { BfclEnv } from './envs/env.ts';
import { jsonDumps, PyError, pyRepr, type PyValue, resultText, toJson } from './py-value.ts';

/** The environments a tool body acts on: one set per model run, swapped per entry. */
export interface Session {
  envs: Map<string, BfclEnv>;
  /** Result strings of every call the model made so far in the entry, in order. */
  results: string[];
}

const TYPES: Readonly<Record<string, string>> = { dict: 'object', float: 'number', tuple: 'array' };

/** BFCL's schema dialect → JSON Schema (`dict`→`object`, `float`→`number` with upstream's note). */
export function toJsonSchema(schema: BfclSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'type' && typeof v === 'string') {
      if (v !== 'any') out.type = TYPES[v] ?? v;
    } else if (k === 'properties' && typeof v === 'object' && v !== null)
      out.properties = Object.fromEntries(
        Object.entries(v as Record<string, BfclSchema>).map(([p, s]) => [p, toJsonSchema(s)]),
      );
    else if (k === 'items' && typeof v === 'object' && v !== null) out.items = toJsonSchema(v as BfclSchema);
    else out[k] = v;
  }
  if (schema.type === 'float' && typeof out.description === 'string')
    out.description = `${out.description} This is a float type value.`;
  return out;
}

/** The tool description: the func doc's, plus its response schema as Anthropic-style upstream tools carry it. */
export function toolDescription(doc: FuncDoc): string {
  return doc.response === undefined
    ? doc.description
    : `${doc.description} The response field has the following schema: ${jsonDumps(doc.response as PyValue)}`;
}

/** What the model reads for a result: upstream's string for the value. */
export const renderResult = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return jsonDumps(value as PyValue);
  return pyRepr(value as PyValue);
};

/** Runs one method on the session and logs its result string; Python exceptions become upstream's error string. */
export function runMethod(session: Session, cls: string, name: string, args: Record<string, PyValue>): PyValue {
  const env = session.envs.get(cls);
  if (env === undefined) throw new Error(`${name}: class ${cls} is not loaded in this entry`);
  let value: PyValue;
  let text: string;
  try {
    value = env.call(name, args);
    text = resultText(value);
  } catch (e) {
    if (!(e instanceof PyError)) throw e;
    text = `Error during execution: ${e.message}`;
    value = text;
  }
  session.results.push(text);
  return value;
}

/** One tool per func doc of each class, all acting on `session` (`deferLoading`: listed by name in the SDK, loaded with `$describe`). */
export function buildTools(
  docs: ReadonlyMap<string, readonly FuncDoc[]>,
  session: Session,
  options: { readonly deferLoading?: boolean } = {},
): Map<string, Tool> {
  const tools = new Map<string, Tool>();
  for (const [cls, list] of docs) {
    for (const doc of list) {
      const tool = defineJsonSchemaTool({
        name: doc.name,
        description: toolDescription(doc),
        ...(options.deferLoading === true ? { deferLoading: true } : {}),
        parameters: { ...toJsonSchema(doc.parameters as BfclSchema), type: 'object' },
        output: { render: (_args: unknown, value: unknown) => [{ type: 'text', text: renderResult(value) }] },
        // The runtime hands over frozen arguments; a Python method owns (and may keep and
        // later mutate) the lists and dicts it is given, so it gets its own copy.
        execute: async (args: unknown) =>
          toJson(
            runMethod(session, cls, doc.name, structuredClone((args ?? {}) as Record<string, PyValue>)),
          ) as JsonValue,
      });
      tools.set(doc.name, tool);
    }
  }
  return tools;
}
