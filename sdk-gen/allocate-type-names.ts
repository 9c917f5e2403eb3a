/**
 * Global type names the SDK must not declare: its own fixed declarations and the
 * ES lib types whose names end in `Args` or `Result` (a tool called `iterator`
 * must not redeclare `IteratorResult`). A test pins this list against the lib files.
 */
export const RESERVED_TYPE_NAMES: ReadonlySet<string> = new Set([
  'JsonValue',
  'ToolCallError',
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
export function allocateTypeNames(toolNames: readonly string[]): string[] {
  const taken = new Set(RESERVED_TYPE_NAMES);
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
