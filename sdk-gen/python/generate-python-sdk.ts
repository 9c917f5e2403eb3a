// The SDK a Python program is written against: one stub function per tool, called with
// keyword arguments, TypedDicts for the objects it takes and returns (declared once for
// every tool that shares them), Literal for enums, constraints in the docstrings. The
// same stubs, with bodies a type checker accepts, are the prefix a program is checked
// against; `functions` maps each Python name back to its tool and wire argument names.
import type { ToolSchema } from '../tool-schema.ts';
import { docstringText, oneLineText } from './python-doc.ts';
import { PYTHON_RESERVED_FUNCTIONS, pythonName } from './python-names.ts';
import { fieldNote, pythonType, type TypeContext, TypedDictRegistry } from './python-type.ts';

/** How one Python keyword argument reaches the tool. */
export interface PythonParameterBinding {
  /** The argument's wire name (`from` for the Python `from_`). */
  readonly wire: string;
  /** An optional argument whose schema does not take null: `None` means "leave it out". */
  readonly noneOmits: boolean;
}

/** What one Python function calls: its tool and how its keyword arguments map. */
export interface PythonFunctionBinding {
  readonly tool: string;
  /** Python keyword → wire argument; a keyword not listed is sent under its own name. */
  readonly parameters: Readonly<Record<string, PythonParameterBinding>>;
}

/** `generatePythonSdk`'s result. */
export interface PythonSdk {
  /** The stubs the model reads (function bodies are `...`). */
  readonly text: string;
  /** The same stubs with bodies a type checker accepts: what a program is checked against. */
  readonly typeCheckPrefix: string;
  /** Python function name → its tool. */
  readonly functions: Readonly<Record<string, PythonFunctionBinding>>;
}

/** Options of `generatePythonSdk`. */
export interface GeneratePythonSdkOptions {
  /** Schema nesting levels rendered as types; deeper ones become `Any`. @default 16 */
  readonly maxDepth?: number;
}

export const PYTHON_SDK_PREAMBLE = [
  '# Python SDK: call a tool as a function with keyword arguments: list_orders(customer_id="c1").',
  '# Calls run one at a time (no await, no asyncio). The last expression (or a top-level return) is the result;',
  '# print() lines come back as logs. No class definitions, files, network or clock; modules: json, re, math, typing.',
  '# A failed call raises RuntimeError whose message starts with its code: "NOT_FOUND: ..." (str(e).split(":")[0]).',
  '# Values cross as JSON: dict keys are str, tuples become lists; sets, bytes, NaN and other objects are refused.',
  'from typing import Any, Literal, NotRequired, TypedDict',
].join('\n');

const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const acceptsNull = (type: string): boolean =>
  type === 'Any' || type === 'None' || / \| None$|^None \||\| None \|/.test(type);

interface RenderedFunction {
  readonly name: string;
  readonly binding: PythonFunctionBinding;
  /** The `def` line and docstring, without a body. */
  readonly head: string;
}

function renderFunction(tool: ToolSchema, name: string, ctx: TypeContext): RenderedFunction {
  const schema = isObject(tool.parameters) ? tool.parameters : {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const taken = new Set<string>();
  const parameters: Record<string, PythonParameterBinding> = {};
  const signature: string[] = [];
  const argDocs: string[] = [];
  const hint = `${name}_args`;
  // Required arguments first: a keyword-only signature reads best that way.
  const keys = Object.keys(properties).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  for (const wire of keys) {
    const py = pythonName(wire, taken);
    const type = pythonType(properties[wire], { ...ctx, root: tool.parameters }, wire === 'args' ? hint : wire, 1);
    const isRequired = required.has(wire);
    parameters[py] = { wire, noneOmits: !isRequired && !acceptsNull(type) };
    signature.push(isRequired ? `${py}: ${type}` : `${py}: ${acceptsNull(type) ? type : `${type} | None`} = None`);
    const note = fieldNote(properties[wire]);
    const renamed = py === wire ? '' : `sent as ${JSON.stringify(wire)}. `;
    if (note !== '' || renamed !== '') argDocs.push(`        ${py}: ${docstringText(`${renamed}${note}`)}`);
  }
  const openRoot = keys.length === 0 && schema.additionalProperties !== false;
  const params = openRoot ? '**kwargs: Any' : signature.length === 0 ? '' : `*, ${signature.join(', ')}`;
  const result =
    tool.outputSchema === undefined
      ? 'Any'
      : pythonType(tool.outputSchema, { ...ctx, root: tool.outputSchema }, resultHint(tool.name));
  const doc = [docstringText(oneLineText(tool.description) || tool.name)];
  for (const note of tool.notes ?? []) doc.push(`    ${docstringText(oneLineText(note))}`);
  if (argDocs.length > 0) doc.push('', '    Args:', ...argDocs);
  const docstring = doc.length === 1 ? `    """${doc[0]}"""` : `    """${doc.join('\n')}\n    """`;
  return {
    name,
    binding: { tool: tool.name, parameters },
    head: `def ${name}(${params}) -> ${result}:\n${docstring}`,
  };
}

/** `list_orders` → `orders` → (items) `Order`; `get_shipment` → `Shipment`. */
function resultHint(toolName: string): string {
  const words = toolName.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/).filter((w) => w !== '');
  const noun = words.length > 1 ? words.slice(1).join('_') : (words[0] ?? 'result');
  return `${noun}`;
}

function deferredFunction(tool: ToolSchema, name: string): RenderedFunction {
  const summary = docstringText(oneLineText(tool.description).slice(0, 200));
  return {
    name,
    binding: { tool: tool.name, parameters: {} },
    head: `def ${name}(**kwargs: Any) -> Any:\n    """${summary} (deferred: arguments not shown)"""`,
  };
}

/**
 * Python stubs for these tools, sorted by wire name: TypedDicts first, then one
 * `def name(*, arg: type, ...) -> Result` per tool with its description and argument
 * notes as a docstring. Pure and deterministic. A wire name that is not a Python
 * identifier, is a keyword or would hide a built-in is mapped (`from` → `from_`,
 * `x-y` → `x_y`, `len` → `len_`, a clash gets `_2`) and the docstring says what it is
 * sent as.
 */
export function generatePythonSdk(tools: readonly ToolSchema[], options: GeneratePythonSdkOptions = {}): PythonSdk {
  const maxDepth = options.maxDepth ?? 16;
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const functionNames = new Set<string>();
  const names = sorted.map((tool) => pythonName(tool.name, functionNames, PYTHON_RESERVED_FUNCTIONS));
  const registry = new TypedDictRegistry(new Set([...functionNames, ...PYTHON_RESERVED_FUNCTIONS]));
  const ctx: TypeContext = { registry, root: undefined, maxDepth };
  const rendered = sorted.map((tool, i) =>
    tool.deferLoading === true ? deferredFunction(tool, names[i]!) : renderFunction(tool, names[i]!, ctx),
  );
  const functions: Record<string, PythonFunctionBinding> = {};
  for (const fn of rendered) functions[fn.name] = fn.binding;
  const text = `${[PYTHON_SDK_PREAMBLE, ...registry.declarations, ...rendered.map((fn) => `${fn.head}\n    ...`)].join('\n\n')}\n`;
  return { text, typeCheckPrefix: pythonTypeCheckPrefix(text), functions };
}

/**
 * What a Python program is type-checked against, from the stubs' text (PythonSdk.text,
 * e.g. `rt.sdk()` of a Python agent): the same stubs with bodies that never return
 * (`...` bodies are an error to a checker reading a .py file). Only function bodies are
 * a line `    ...` of their own.
 */
export function pythonTypeCheckPrefix(sdkText: string): string {
  return sdkText.replace(/^ {4}\.\.\.$/gm, '    raise NotImplementedError');
}
