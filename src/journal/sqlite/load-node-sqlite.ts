// Loads `node:sqlite` on demand (the root entry never does), without the one-time
// ExperimentalWarning some Node 24 releases print for it: a library should not write
// to its user's stderr for a feature the user asked for. Only that warning is held back.
type NodeSqlite = typeof import('node:sqlite');

let loaded: NodeSqlite | undefined;

export function loadNodeSqlite(): NodeSqlite {
  if (loaded !== undefined) return loaded;
  const emitWarning = process.emitWarning;
  const quiet = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]): void {
    const text = typeof warning === 'string' ? warning : warning.message;
    const type =
      typeof rest[0] === 'string'
        ? rest[0]
        : ((rest[0] as { type?: unknown } | undefined)?.type ?? (warning as { name?: unknown }).name);
    if (type === 'ExperimentalWarning' && /sqlite/i.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  };
  process.emitWarning = quiet as typeof process.emitWarning;
  let sqlite: NodeSqlite | undefined;
  try {
    sqlite = process.getBuiltinModule('node:sqlite');
  } finally {
    process.emitWarning = emitWarning;
  }
  if (sqlite === undefined) {
    throw new Error(
      `openSqliteJournal: this Node (${process.version}) has no node:sqlite module; use Node >= 24 or the JSONL file journal`,
    );
  }
  loaded = sqlite;
  return sqlite;
}
