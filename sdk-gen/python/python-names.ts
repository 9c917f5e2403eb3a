// Python names for wire names. A tool or argument whose wire name is not a Python
// identifier, is a keyword, or would hide a built-in the program needs gets a mapped
// name; the stubs say which wire name it stands for, and the runner maps it back.

/** Python's hard and soft keywords: never a function or parameter name. */
export const PYTHON_KEYWORDS: ReadonlySet<string> = new Set([
  'False',
  'None',
  'True',
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'while',
  'with',
  'yield',
  'match',
  'case',
  'type',
  '_',
]);

/** Built-ins and typing names a tool function must not hide (a tool named `len` becomes `len_`). */
export const PYTHON_RESERVED_FUNCTIONS: ReadonlySet<string> = new Set([
  'abs',
  'all',
  'any',
  'ascii',
  'bin',
  'bool',
  'bytes',
  'callable',
  'chr',
  'dict',
  'dir',
  'divmod',
  'enumerate',
  'filter',
  'float',
  'format',
  'frozenset',
  'getattr',
  'hasattr',
  'hash',
  'hex',
  'id',
  'input',
  'int',
  'isinstance',
  'issubclass',
  'iter',
  'len',
  'list',
  'map',
  'max',
  'min',
  'next',
  'object',
  'oct',
  'open',
  'ord',
  'pow',
  'print',
  'range',
  'repr',
  'reversed',
  'round',
  'set',
  'setattr',
  'slice',
  'sorted',
  'str',
  'sum',
  'super',
  'tuple',
  'type',
  'vars',
  'zip',
  'Any',
  'Literal',
  'NotRequired',
  'TypedDict',
  'asyncio',
  'json',
  're',
  'math',
  'typing',
  'sys',
  'os',
]);

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The Python name for a wire name, not yet in `taken` (which it joins): the name itself
 * when it is an identifier and free; else invalid characters become `_`, a leading digit
 * gets a `_` before it, a keyword or reserved name gets `_` after it (`from` → `from_`),
 * and a name already taken gets `_2`, `_3`, ….
 */
export function pythonName(wire: string, taken: Set<string>, reserved: ReadonlySet<string> = new Set()): string {
  let base = wire.replace(/[^A-Za-z0-9_]/g, '_');
  if (base === '' || /^[0-9]/.test(base)) base = `_${base}`;
  if (PYTHON_KEYWORDS.has(base) || reserved.has(base)) base = `${base}_`;
  let name = base;
  for (let n = 2; taken.has(name) || PYTHON_KEYWORDS.has(name) || reserved.has(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/** Whether a wire name is usable as it is in Python source (a key of a class-syntax TypedDict). */
export function isPlainIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !PYTHON_KEYWORDS.has(name);
}

/** `list_orders` → `ListOrders`; `line items` → `LineItems`; '' or a leading digit gets a `T` first. */
export function pascalCase(text: string): string {
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '');
  const joined = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return joined === '' || /^[0-9]/.test(joined) ? `T${joined}` : joined;
}

/** A plural noun's singular, for naming an array's items: `orders` → `order`, `entries` → `entry`. */
export function singular(word: string): string {
  if (/ies$/i.test(word) && word.length > 3) return `${word.slice(0, -3)}y`;
  if (/(ss|us)$/i.test(word)) return word;
  if (/s$/i.test(word) && word.length > 1) return word.slice(0, -1);
  return word;
}
