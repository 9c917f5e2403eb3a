// ptc-runtime needs Node >= 24 (isolated-vm 7, the line with the host-memory fix, is built
// for Node 24 and later). The package entry imports this module first, so an older Node
// stops here with that sentence instead of isolated-vm's "No native build was found".

/** The lowest Node major ptc-runtime runs on. */
export const MIN_NODE_MAJOR = 24;

/** Throws `ptc-runtime needs Node >= 24 (found <version>)` on an older Node. */
export function requireNode24(version: string = process.versions.node): void {
  const major = Number.parseInt(version.split('.')[0] ?? '', 10);
  if (!(major >= MIN_NODE_MAJOR)) {
    throw new Error(`ptc-runtime needs Node >= ${MIN_NODE_MAJOR} (found ${version})`);
  }
}

requireNode24();
