// esbuild's service process inherits our stderr, and a program that crashes it (a Go stack
// overflow on deeply nested code) makes it print hundreds of lines of goroutine dump
// there: noise in the host's stderr that looks like the host crashed. Imported before
// esbuild loads, this points esbuild (ESBUILD_BINARY_PATH, read when esbuild loads) at a
// wrapper that starts the same binary with its stderr in a private file; the crash's
// first lines are read from it into the compile failure, bounded, and the file is emptied.
// Only where the user has not chosen a binary, and on POSIX (the wrapper is a sh script).
// With PTC_ESBUILD_CRASH_DIR set (the test command sets it) each crash's whole output is
// kept in a file there, and the compile failure names that file; the wrapper lives there too.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const MAX_REPORTED_CHARS = 300;

const crashDir = ((): string | undefined => {
  const dir = process.env['PTC_ESBUILD_CRASH_DIR'];
  if (dir === undefined || dir === '') return undefined;
  try {
    mkdirSync(resolve(dir), { recursive: true });
    return resolve(dir);
  } catch {
    return undefined;
  }
})();
let crashes = 0;

function install(): string | undefined {
  if (process.platform === 'win32' || process.env['ESBUILD_BINARY_PATH'] !== undefined) return undefined;
  try {
    const binary = esbuildBinary();
    const dir = mkdtempSync(join(crashDir ?? tmpdir(), 'ptc-esbuild-'));
    const log = join(dir, 'stderr.log');
    const wrapper = join(dir, 'esbuild');
    const quote = (path: string): string => `'${path.replace(/'/g, `'\\''`)}'`;
    writeFileSync(log, '', { mode: 0o600 });
    writeFileSync(wrapper, `#!/bin/sh\nexec ${quote(binary)} "$@" 2>>${quote(log)}\n`, { mode: 0o700 });
    process.env['ESBUILD_BINARY_PATH'] = wrapper;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return log;
  } catch {
    return undefined; // esbuild keeps its own binary and inherits stderr
  }
}

/**
 * The native binary esbuild's own API would start (its platform package). `esbuild/bin/esbuild`
 * is that binary only when esbuild's install script ran (npm 11 skips it unless allowed);
 * otherwise it is a Node script that starts the binary: one more Node process per service start.
 */
function esbuildBinary(): string {
  const require = createRequire(import.meta.url);
  try {
    const fromEsbuild = createRequire(require.resolve('esbuild/package.json'));
    return fromEsbuild.resolve(`@esbuild/${process.platform}-${process.arch}/bin/esbuild`);
  } catch {
    return require.resolve('esbuild/bin/esbuild');
  }
}

const stderrLog = install();

/** What the esbuild service wrote on stderr since the last call (its first lines, bounded); the log is emptied. */
export function takeEsbuildStderr(): string {
  if (stderrLog === undefined) return '';
  try {
    const text = readFileSync(stderrLog, 'utf8');
    truncateSync(stderrLog, 0);
    const head = text
      .split('\n')
      .filter((line) => line.startsWith('fatal error') || line.startsWith('panic'))
      .slice(0, 3)
      .join('; ');
    const bounded = head.length > MAX_REPORTED_CHARS ? `${head.slice(0, MAX_REPORTED_CHARS)}...` : head;
    return [bounded, keepCrash(text)].filter((part) => part !== '').join('; ');
  } catch {
    return '';
  }
}

/** With PTC_ESBUILD_CRASH_DIR: the whole output in a file there, and the words that name it ('' without). */
function keepCrash(text: string): string {
  if (crashDir === undefined || text.trim() === '') return '';
  crashes += 1;
  const file = join(crashDir, `esbuild-${process.pid}-${crashes}.log`);
  try {
    writeFileSync(file, text);
    return `its whole output: ${file}`;
  } catch {
    return '';
  }
}
