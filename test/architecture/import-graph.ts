// The repository's import graph, read by TypeScript's own pre-processor (static, dynamic
// and type-only imports, `export … from`), not guessed with a pattern; and the cycles in
// it. Shared by the architecture tests.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const root = fileURLToPath(new URL('../../', import.meta.url));

export interface ImportEdge {
  /** The importing file, relative to the repository root. */
  readonly from: string;
  readonly specifier: string;
  /** For a relative specifier: the target, relative to the repository root. */
  readonly target?: string;
}

/** Every .ts file under `dir` (relative to the repository root), in a stable order. */
export function tsFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

/** The import edges of one file, given its text (read from disk when omitted). */
export function importsOf(file: string, text: string = readFileSync(join(root, file), 'utf8')): ImportEdge[] {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map(({ fileName: specifier }) =>
    specifier.startsWith('.')
      ? { from: file, specifier, target: relative(root, resolve(root, dirname(file), specifier)) }
      : { from: file, specifier },
  );
}

/**
 * The import cycles among `files`: each strongly connected component of more than one
 * file (or a file importing itself), as one path around it that starts and ends at its
 * first file in sorted order — `a.ts → b.ts → a.ts`. Edges to files outside `files` are
 * ignored. Tarjan's algorithm, iterative (no recursion depth limit).
 */
export function importCycles(files: readonly string[], edges: readonly ImportEdge[]): string[] {
  const known = new Set(files);
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const edge of edges) {
    if (edge.target !== undefined && known.has(edge.from) && known.has(edge.target)) {
      const list = next.get(edge.from)!;
      if (!list.includes(edge.target)) list.push(edge.target);
    }
  }
  const components = stronglyConnected(files, next);
  return components
    .filter((c) => c.length > 1 || next.get(c[0]!)!.includes(c[0]!))
    .map((c) => cyclePath(c, next))
    .sort();
}

function stronglyConnected(files: readonly string[], next: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const start of files) {
    if (index.has(start)) continue;
    // Each frame: a file and the position of the next edge to follow from it.
    const frames: { file: string; edge: number }[] = [{ file: start, edge: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const targets = next.get(frame.file)!;
      if (frame.edge < targets.length) {
        const target = targets[frame.edge++]!;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          frames.push({ file: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.file, Math.min(low.get(frame.file)!, index.get(target)!));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent !== undefined) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!));
      if (low.get(frame.file) === index.get(frame.file)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.file);
        components.push(component.sort());
      }
    }
  }
  return components;
}

/** One closed path through a component, from its first file back to it (breadth-first, so a shortest one). */
function cyclePath(component: readonly string[], next: ReadonlyMap<string, readonly string[]>): string {
  const members = new Set(component);
  const start = component[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of next.get(file)!) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        const rest = component.length > path.length ? ` (${component.length} files in the knot)` : '';
        return `${[...path, start].join(' → ')}${rest}`;
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, file);
        queue.push(target);
      }
    }
  }
  return start;
}
