// GorillaFileSystem: a tree of folders and files addressed one name at a time from a
// current folder. Our own implementation of the upstream behaviour (see NOTES.md §4).
import { filler } from '../filler.ts';
import { PyError, type PyValue } from '../py-value.ts';
import { type Args, type BfclEnv, type Dict, dispatch, isDict, opt, req, str, truthy } from './env.ts';

export class FsFile {
  name: string;
  content: string;
  constructor(name: string, content: string) {
    this.name = name;
    this.content = content;
  }
}

export class FsDir {
  contents = new Map<string, FsFile | FsDir>();
  name: string;
  parent: FsDir | null;
  constructor(name: string, parent: FsDir | null) {
    this.name = name;
    this.parent = parent;
  }

  addFile(name: string, content = ''): void {
    if (this.contents.has(name)) throw new PyError(`File '${name}' already exists in directory '${this.name}'.`);
    this.contents.set(name, new FsFile(name, content));
  }

  addDir(name: string): FsDir {
    if (this.contents.has(name)) throw new PyError(`Directory '${name}' already exists in directory '${this.name}'.`);
    const dir = new FsDir(name, this);
    this.contents.set(name, dir);
    return dir;
  }

  get(name: string): FsFile | FsDir | undefined {
    return name === '.' ? this : this.contents.get(name);
  }
}

/** Python's str.splitlines(). */
export function splitLines(s: string): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Python's line boundaries include these.
  const breaks = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;
  const lines = s.split(breaks);
  if (lines.length > 0 && lines[lines.length - 1] === '' && s.length > 0) lines.pop();
  return s.length === 0 ? [] : lines;
}

const BAD_CHARS = '|/\\?%*:"><';
const validName = (name: string): boolean => ![...BAD_CHARS].some((c) => name.includes(c));

/** Python's `f"{x:.2f}"` (round half to even on the exact binary value). */
function fixed2(x: number): string {
  const t = x.toFixed(2);
  const scaled = x * 100;
  if (Number.isInteger(scaled * 2) && !Number.isInteger(scaled)) {
    const down = Math.floor(scaled);
    const even = down % 2 === 0 ? down : down + 1;
    return (even / 100).toFixed(2);
  }
  return t;
}

/** The tree as Python's File/Directory `==` sees it: names and contents, order ignored. */
export function fsState(node: FsFile | FsDir): PyValue {
  if (node instanceof FsFile) return { file: node.name, content: node.content };
  return {
    directory: node.name,
    contents: Object.fromEntries([...node.contents].map(([k, v]) => [k, fsState(v)])),
  };
}

/** The tree as plain JSON (for the fidelity data). */
export function fsJson(node: FsFile | FsDir): PyValue {
  if (node instanceof FsFile) return { type: 'file', name: node.name, content: node.content };
  return { type: 'directory', name: node.name, contents: [...node.contents.values()].map(fsJson) };
}

export class GorillaFileSystem implements BfclEnv {
  root = new FsDir('/', null);
  longContext = false;
  private cwd = this.root;

  load(cfg: Dict, longContext: boolean): void {
    this.longContext = longContext;
    this.root = new FsDir('/', null);
    const root = cfg.root;
    if (isDict(root)) {
      const first = Object.keys(root)[0];
      if (first !== undefined) {
        const top = root[first];
        const dir = new FsDir(first, null);
        this.loadDir(isDict(top) && isDict(top.contents) ? top.contents : {}, dir);
        this.root = dir;
      }
    }
    this.cwd = this.root;
  }

  private loadDir(spec: Dict, dir: FsDir): void {
    let bottom = true;
    for (const [name, data] of Object.entries(spec)) {
      if (!isDict(data)) continue;
      if (data.type === 'directory') {
        bottom = false;
        const sub = new FsDir(name, dir);
        this.loadDir(isDict(data.contents) ? data.contents : {}, sub);
        dir.contents.set(name, sub);
      } else if (data.type === 'file') {
        let content = str(data.content ?? '');
        if (this.longContext && !filler().FILES_TAIL_USED.includes(name)) content += filler().FILE_CONTENT_EXTENSION;
        dir.contents.set(name, new FsFile(name, content));
      }
    }
    if (bottom && this.longContext) for (const image of filler().POPULATE_FILE_EXTENSION) dir.addFile(image);
  }

  state(): Record<string, PyValue> {
    return { root: fsState(this.root), long_context: this.longContext };
  }

  private navigate(path: string | null): FsDir | Dict {
    if (path === null || path === '.') return this.cwd;
    if (path === '/') return this.root;
    const parts = path.replace(/^\/+|\/+$/g, '').split('/');
    let dir = path.startsWith('/') ? this.root : this.cwd;
    for (const part of parts) {
      const next = dir.get(part);
      if (!(next instanceof FsDir)) return { error: `cd: '${path}': No such file or directory` };
      dir = next;
    }
    return dir;
  }

  private fileIn(name: string): FsFile | undefined {
    const item = this.cwd.contents.get(name);
    return item instanceof FsFile ? item : undefined;
  }

  call(method: string, a: Args): PyValue {
    const s = (name: string): string => str(req(a, method, name));
    return dispatch('GorillaFileSystem', this.table(a, s), method, a);
  }

  private table(a: Args, s: (name: string) => string): Record<string, (args: Args) => PyValue> {
    return {
      pwd: () => {
        const names: string[] = [];
        for (let d: FsDir | null = this.cwd; d !== null; d = d.parent) names.push(d.name);
        return { current_working_directory: `/${names.reverse().join('/')}` };
      },
      ls: () => {
        const all = truthy(opt(a, 'a', false));
        const names = [...this.cwd.contents.keys()].filter((n) => all || !n.startsWith('.'));
        return { current_directory_content: names };
      },
      cd: () => {
        let folder = s('folder').replace(/\/+$/, '');
        if (folder === '') folder = '/';
        if (!['.', '..', '/'].includes(folder) && folder.includes('/'))
          return { error: `cd: ${folder}: Unsupported path. Only one folder level at a time is supported.` };
        if (folder === '..') {
          if (this.cwd.parent !== null) this.cwd = this.cwd.parent;
          else if (this.cwd === this.root) return { error: 'Current directory is already the root. Cannot go back.' };
          else return { error: 'cd: ..: No such directory' };
          return {};
        }
        const target = this.navigate(folder);
        if (!(target instanceof FsDir)) return target;
        this.cwd = target;
        return { current_working_directory: target.name };
      },
      mkdir: () => {
        const name = s('dir_name');
        if (!validName(name)) return { error: `mkdir: cannot create directory '${name}': Invalid character` };
        if (this.cwd.contents.has(name)) return { error: `mkdir: cannot create directory '${name}': File exists` };
        this.cwd.addDir(name);
        return null;
      },
      touch: () => {
        const name = s('file_name');
        if (!validName(name)) return { error: `touch: cannot touch '${name}': Invalid character` };
        if (this.cwd.contents.has(name)) return { error: `touch: cannot touch '${name}': File exists` };
        this.cwd.addFile(name);
        return null;
      },
      echo: () => {
        const content = req(a, 'echo', 'content');
        const fileName = opt(a, 'file_name', null);
        if (fileName === null) return { terminal_output: content };
        const name = str(fileName);
        if (!validName(name)) return { error: `echo: cannot write to '${name}': Invalid character` };
        if (name === '') return { terminal_output: content };
        const target = this.cwd.get(name);
        if (target === undefined) return { error: `echo: cannot write to '${name}': No such file` };
        if (!(target instanceof FsFile)) throw new PyError("'Directory' object has no attribute '_write'");
        target.content = str(content);
        return null;
      },
      cat: () => {
        const name = s('file_name');
        if (!validName(name)) return { error: `cat: '${name}': Invalid character` };
        const item = this.cwd.contents.get(name);
        if (item === undefined) return { error: `cat: '${name}': No such file or directory` };
        return item instanceof FsFile ? { file_content: item.content } : { error: `cat: '${name}': Is a directory` };
      },
      find: () => {
        const path = str(opt(a, 'path', '.'));
        const nameArg = opt(a, 'name', null);
        const target = this.navigate(path);
        if (!(target instanceof FsDir)) {
          const msg = str(target.error ?? '');
          return msg.startsWith('cd:') ? { error: msg.replace('cd:', 'find:') } : target;
        }
        const matches: string[] = [];
        const walk = (dir: FsDir, base: string): void => {
          for (const [name, child] of dir.contents) {
            const p = `${base}/${name}`;
            if (nameArg === null || name.includes(str(nameArg))) matches.push(p);
            if (child instanceof FsDir) walk(child, p);
          }
        };
        walk(target, path.replace(/\/+$/, ''));
        return { matches };
      },
      wc: () => {
        const name = s('file_name');
        const mode = str(opt(a, 'mode', 'l'));
        if (!['l', 'w', 'c'].includes(mode)) return { error: `wc: invalid mode '${mode}'` };
        const file = this.fileIn(name);
        if (file === undefined) return { error: `wc: ${name}: No such file or directory` };
        if (mode === 'l') return { count: splitLines(file.content).length, type: 'lines' };
        if (mode === 'w') return { count: file.content.split(/\s+/).filter((w) => w !== '').length, type: 'words' };
        return { count: [...file.content].length, type: 'characters' };
      },
      sort: () => {
        const name = s('file_name');
        const file = this.fileIn(name);
        if (file === undefined) return { error: `sort: ${name}: No such file or directory` };
        return { sorted_content: splitLines(file.content).sort(codePointOrder).join('\n') };
      },
      grep: () => {
        const name = s('file_name');
        const pattern = s('pattern');
        const file = this.fileIn(name);
        if (file === undefined) return { error: `grep: ${name}: No such file or directory` };
        return { matching_lines: splitLines(file.content).filter((l) => l.includes(pattern)) };
      },
      du: () => {
        const size = (node: FsFile | FsDir): number =>
          node instanceof FsFile
            ? Buffer.byteLength(node.content, 'utf8')
            : [...node.contents.values()].reduce((n, c) => n + size(c), 0);
        let total = size(this.cwd);
        if (!truthy(opt(a, 'human_readable', false))) return { disk_usage: `${total} bytes` };
        for (const unit of ['B', 'KB', 'MB', 'GB', 'TB']) {
          if (total < 1024) return { disk_usage: `${fixed2(total)} ${unit}` };
          total /= 1024;
        }
        return { disk_usage: `${fixed2(total)} PB` };
      },
      tail: () => {
        const name = s('file_name');
        const file = this.fileIn(name);
        if (file === undefined) return { error: `tail: ${name}: No such file or directory` };
        const lines = splitLines(file.content);
        let n = Math.trunc(Number(opt(a, 'lines', 10)));
        if (n > lines.length) n = lines.length;
        // Python's content[-n:]: -0 is 0, so lines=0 keeps everything.
        const start = -n >= 0 ? Math.min(-n, lines.length) : Math.max(lines.length - n, 0);
        return { last_lines: lines.slice(start).join('\n') };
      },
      diff: () => {
        const n1 = s('file_name1');
        const n2 = s('file_name2');
        const f1 = this.cwd.contents.get(n1);
        const f2 = this.cwd.contents.get(n2);
        if (!(f1 instanceof FsFile) || !(f2 instanceof FsFile))
          return { error: `diff: ${n1} or ${n2}: No such file or directory` };
        const l1 = splitLines(f1.content);
        const l2 = splitLines(f2.content);
        const out: string[] = [];
        for (let i = 0; i < Math.min(l1.length, l2.length); i++)
          if (l1[i] !== l2[i]) out.push(`- ${l1[i]}\n+ ${l2[i]}`);
        return { diff_lines: out.join('\n') };
      },
      mv: () => this.moveOrCopy('mv', s('source'), s('destination')),
      cp: () => this.moveOrCopy('cp', s('source'), s('destination')),
      rm: () => {
        const name = s('file_name');
        if (!this.cwd.contents.has(name)) return { error: `rm: cannot remove '${name}': No such file or directory` };
        this.cwd.contents.delete(name);
        return { result: `'${name}' removed` };
      },
      rmdir: () => {
        const name = s('dir_name');
        const item = this.cwd.contents.get(name);
        if (item === undefined) return { error: `rmdir: cannot remove '${name}': No such file or directory` };
        if (!(item instanceof FsDir)) return { error: `rmdir: cannot remove '${name}': Not a directory` };
        if (item.contents.size > 0) return { error: `rmdir: cannot remove '${name}': Directory not empty` };
        this.cwd.contents.delete(name);
        return { result: `'${name}' removed` };
      },
    };
  }

  private moveOrCopy(op: 'mv' | 'cp', source: string, destination: string): PyValue {
    const verb = op === 'mv' ? 'move' : 'copy';
    const done = op === 'mv' ? 'moved' : 'copied';
    const item = this.cwd.contents.get(source);
    if (item === undefined) return { error: `${op}: cannot ${verb} '${source}': No such file or directory` };
    if (destination.includes('/'))
      return { error: `${op}: path not allowed in destination. Provide only a file or directory name.` };
    // A moved folder keeps its contents table (shared); a copied one gets a shallow copy,
    // so the files inside are shared objects.
    const place = (into: FsDir, name: string): void => {
      if (item instanceof FsFile) into.addFile(name, item.content);
      else into.addDir(name).contents = op === 'mv' ? item.contents : new Map(item.contents);
    };
    const dest = this.cwd.contents.get(destination);
    if (dest !== undefined) {
      if (!(dest instanceof FsDir))
        return { error: `${op}: cannot ${verb} '${source}' to '${destination}': Not a directory` };
      if (op === 'mv') {
        if (dest.contents.has(source))
          return { error: `mv: cannot move '${source}' to '${destination}/${source}': File exists` };
        this.cwd.contents.delete(source);
      }
      // cp checks for "<destination>/<source>" (never a key), so a clash raises in addFile.
      place(dest, source);
      return { result: `'${source}' ${done} to '${destination}/${source}'` };
    }
    if (op === 'mv') this.cwd.contents.delete(source);
    place(this.cwd, destination);
    return { result: `'${source}' ${done} to '${destination}'` };
  }
}

const codePointOrder = (x: string, y: string): number => {
  const a = [...x];
  const b = [...y];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = (a[i]?.codePointAt(0) ?? 0) - (b[i]?.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return a.length - b.length;
};
