/**
 * Global type names the SDK must not declare: its own fixed declarations and the
 * ES lib types whose names end in `Args` or `Result` (a tool called `iterator`
 * must not redeclare `IteratorResult`). A test pins this list against the lib files.
 */
export const RESERVED_TYPE_NAMES: ReadonlySet<string> = new Set([
  'JsonValue',
  'ToolCallError',
  'Tool',
  'Deferred',
  'ClassAccessorDecoratorResult',
  'IteratorResult',
  'IteratorReturnResult',
  'IteratorYieldResult',
  'PromiseFulfilledResult',
  'PromiseRejectedResult',
  'PromiseSettledResult',
]);

// Long names make long type names; the wire name keeps its full length anyway.
const MAX_BASE_LENGTH = 40;

function pascalCase(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  let base = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
  if (base === '' || /^[0-9]/.test(base)) base = `Tool${base}`;
  return base.slice(0, MAX_BASE_LENGTH);
}

/**
 * One type-name base per tool (`search_orders` → `SearchOrders`, used as
 * `SearchOrdersArgs`/`SearchOrdersResult`), unique even when wire names differ
 * only in characters an identifier cannot hold (`x-y`, `x_y` → `XY`, `XY2`).
 * Deterministic for a given order of names; callers pass them sorted.
 */
export function allocateTypeNames(
  toolNames: readonly string[],
  taken: Set<string> = new Set(RESERVED_TYPE_NAMES),
): string[] {
  return toolNames.map((name) => {
    const base = pascalCase(name);
    let candidate = base;
    for (let n = 2; taken.has(`${candidate}Args`) || taken.has(`${candidate}Result`); n++) {
      candidate = `${base}${n}`;
    }
    taken.add(`${candidate}Args`);
    taken.add(`${candidate}Result`);
    return candidate;
  });
}

/**
 * A type name for a schema a tool's `$ref` points at (`count_tree` + `#/$defs/node`
 * → `CountTreeNode`), unique among `taken` (numeric suffix on collision), which it
 * joins. Call after `allocateTypeNames` with the same set, so tools keep their names.
 */
export function allocateDefinitionName(base: string, pointer: string, taken: Set<string>): string {
  const last = pointer.split('/').pop() ?? '';
  const words = last.split(/[^A-Za-z0-9]+/).filter((word) => word !== '' && !/^[0-9]+$/.test(word));
  const suffix =
    words
      .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
      .join('')
      .slice(0, MAX_BASE_LENGTH) || 'Def';
  const candidate = `${base}${suffix}`;
  let name = candidate;
  for (let n = 2; taken.has(name); n++) name = `${candidate}${n}`;
  taken.add(name);
  return name;
}
