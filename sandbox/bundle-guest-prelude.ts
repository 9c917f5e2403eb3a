// Bundles the guest prelude (sandbox/guest/, TypeScript) into the one script every
// guest context evaluates, and writes it to guest-prelude-bundle.ts, so that nothing is
// bundled at run time. Run after changing sandbox/guest/: `npm run bundle`
// (a test fails while the committed bundle is stale).
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve as resolvePath, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform, type BuildOptions, type Plugin } from 'esbuild';
import {
  hardenUrlLibrary,
  URL_INTRINSIC_HELPERS,
  URL_INTRINSICS_PARAMETER,
  type HardenedUrlLibrary,
} from './harden-url-library.ts';

const ENTRY = fileURLToPath(new URL('./guest/guest-main.ts', import.meta.url));
const DIGEST_ENTRY = fileURLToPath(new URL('./guest/digest-hashes.ts', import.meta.url));
const GUEST_DIR = fileURLToPath(new URL('./guest/', import.meta.url));

// whatwg-url (the guest's URL) needs only UTF-8: its legacy multi-byte encodings (for
// form encoding in other charsets, unreachable from the URL API) are left out, its
// percent-encoding keeps @exodus/bytes' own UTF-8 path, and its UTF-8 codec is the
// prelude's (guest/url-encoding.ts).
const PERCENT_ENCODE_UTF8 = `
import { utf8fromStringLoose } from '@exodus/bytes/utf8.js';
import { percentEncoder } from './fallback/percent.js';
export function percentEncodeAfterEncoding(encoding, input, percentEncodeSet, spaceAsPlus = false) {
  if (String(encoding).toLowerCase() !== 'utf-8') throw new RangeError('only UTF-8 is supported');
  return percentEncoder(percentEncodeSet, spaceAsPlus)(utf8fromStringLoose(input));
}`;
const NO_SHARED_ARRAY_BUFFER = `const SharedArrayBuffer = class SharedArrayBuffer {
  get byteLength() { throw new TypeError('not a SharedArrayBuffer'); }
  get growable() { throw new TypeError('not a SharedArrayBuffer'); }
};`;
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
const urlDependencies: Plugin = {
  name: 'url-dependencies',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^@exodus\/bytes\/encoding\.js$/ }, () => ({ path: 'empty', namespace: 'empty' }));
    pluginBuild.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: '', loader: 'js' }));
    pluginBuild.onResolve({ filter: /^@exodus\/bytes\/whatwg\.js$/ }, async (args) => {
      const resolved = await pluginBuild.resolve('@exodus/bytes/utf8.js', {
        kind: args.kind,
        resolveDir: args.resolveDir,
      });
      // A path relative to the project: the bundle must not name the folder it was built in.
      const target = resolved.path.replace(/utf8\.js$/, 'whatwg-utf8-only.js');
      return { path: relative(PROJECT_ROOT, target).split(sep).join('/'), namespace: 'percent-utf8' };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: 'percent-utf8' }, (args) => ({
      contents: PERCENT_ENCODE_UTF8,
      loader: 'js',
      resolveDir: dirname(resolvePath(PROJECT_ROOT, args.path)),
    }));
    // webidl-conversions and whatwg-url read SharedArrayBuffer.prototype when they load; the guest has no
    // SharedArrayBuffer (off-heap-guards.ts), so it sees one that no value is an instance of.
    pluginBuild.onLoad(
      { filter: /(webidl-conversions[\\/]lib[\\/]index|whatwg-url[\\/]lib[\\/]utils)\.js$/ },
      async (args) => ({
        contents: `${NO_SHARED_ARRAY_BUFFER}\n${await readFile(args.path, 'utf8')}`,
        loader: 'js',
      }),
    );
    // Its UTF-8 codec is the prelude's (guest/url-encoding.ts), handed to the library when
    // it is evaluated (guest/url.ts): the parameter the library's text is wrapped in.
    pluginBuild.onResolve({ filter: /^\.\/encoding$/ }, (args) =>
      /whatwg-url/.test(args.importer) ? { path: 'encoding', namespace: 'prelude-encoding' } : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'prelude-encoding' }, () => ({
      contents: `export const utf8Encode = ${ENCODING_PARAMETER}.utf8Encode;
export const utf8DecodeWithoutBOM = ${ENCODING_PARAMETER}.utf8DecodeWithoutBOM;`,
      loader: 'js',
    }));
  },
};
const ENCODING_PARAMETER = '__ptc_url_encoding';
const OUTPUT = fileURLToPath(new URL('./guest-prelude-bundle.ts', import.meta.url));

const COMMON_OPTIONS: BuildOptions = {
  bundle: true,
  write: false,
  platform: 'neutral',
  target: 'es2023',
  // Every isolate holds its own copy of the prelude's text (V8 needs the source to compile
  // a function on first call): ASCII keeps it a one-byte string, half the bytes of the
  // two-byte string one non-Latin-1 character makes of all of it, and without
  // indentation it is a fifth smaller again. Both halve the cost of loading it per run.
  charset: 'ascii',
  minifyWhitespace: true,
  legalComments: 'none',
  logLevel: 'silent',
  mainFields: ['main', 'module'],
};

/**
 * The prelude as one strict-mode script (an IIFE: it leaves no bindings behind). It is
 * told what the URL library reads of the global scope (guest/url-intrinsics.ts captures
 * that before any program runs).
 */
export async function bundleGuestPrelude(): Promise<string> {
  const { reads } = await hardenedUrlLibrary();
  const digest = await digestLibrary();
  const result = await build({
    ...COMMON_OPTIONS,
    entryPoints: [ENTRY],
    format: 'iife',
    plugins: [
      {
        name: 'digest-library',
        setup(pluginBuild) {
          pluginBuild.onLoad({ filter: /[\\/]guest[\\/]digest-library\.ts$/ }, () => ({
            contents: `export const makeDigestHashes = ${digest};`,
            loader: 'js',
          }));
        },
      },
    ],
    // As JSON text, parsed when the captures are taken: as an object literal it was built
    // when the prelude loaded, and its ~300 names were in the code cache every isolate reads.
    define: { __PTC_URL_LIBRARY_READS__: JSON.stringify(JSON.stringify(reads)) },
  });
  const script = result.outputFiles?.[0]?.text;
  if (script === undefined) throw new Error('bundleGuestPrelude: esbuild produced no output');
  return script;
}

/**
 * The digest hashes (guest/digest-hashes.ts with @noble/hashes) as the text of one function
 * that evaluates their modules and returns them (guest/digest-library.ts): nested, their
 * code is compiled on the first digest only, and nothing of it is in the code cache.
 */
async function digestLibrary(): Promise<string> {
  const result = await build({ ...COMMON_OPTIONS, entryPoints: [DIGEST_ENTRY], format: 'esm' });
  const code = result.outputFiles?.[0]?.text;
  const exported = code === undefined ? null : /export\s*\{([^}]*)\};?\s*$/.exec(code);
  if (code === undefined || exported === null || exported[1] === undefined)
    throw new Error('digestLibrary: esbuild produced no module ending in its exports');
  const fields = exported[1].split(',').map((part) => {
    const [local, name = local] = part.trim().split(/\s+as\s+/);
    return `${name}:${local}`;
  });
  return `function(){${code.slice(0, exported.index)}return{__proto__:null,${fields.join(',')}};}`;
}

async function hardenedUrlLibrary(): Promise<HardenedUrlLibrary> {
  const result = await build({
    ...COMMON_OPTIONS,
    stdin: {
      contents: "export { URL, URLSearchParams } from 'whatwg-url';",
      resolveDir: GUEST_DIR,
      sourcefile: 'url-library.js',
      loader: 'js',
    },
    format: 'cjs',
    plugins: [urlDependencies],
  });
  const code = result.outputFiles?.[0]?.text;
  if (code === undefined) throw new Error('bundleUrlLibrary: esbuild produced no output');
  return hardenUrlLibrary(code, [ENCODING_PARAMETER, URL_INTRINSICS_PARAMETER, 'module', 'exports']);
}

/**
 * The URL library (whatwg-url with tr46) as the text of one function expression: the
 * prelude evaluates it on first use of URL or URLSearchParams and calls it with its
 * UTF-8 codec and the built-ins it captured before any program (harden-url-library.ts);
 * it returns `{ URL, URLSearchParams }` and leaves no bindings behind. Apart from the
 * prelude, its text is one copy per process instead of one per isolate.
 */
export async function bundleUrlLibrary(): Promise<string> {
  const { code, reads } = await hardenedUrlLibrary();
  const bindings = [
    ...URL_INTRINSIC_HELPERS.map((name) => `${name}=${URL_INTRINSICS_PARAMETER}.${name}`),
    ...reads.globals.map((name) => `${name}=${URL_INTRINSICS_PARAMETER}.globals.${name}`),
  ];
  const text = `(function(${ENCODING_PARAMETER},${URL_INTRINSICS_PARAMETER}){"use strict";var ${bindings.join(',')};var module={exports:{}},exports=module.exports;${code}return module.exports;})`;
  const minified = await transform(text, {
    loader: 'js',
    charset: 'ascii',
    minifyWhitespace: true,
    legalComments: 'none',
  });
  return minified.code.replace(/;\n$/, '');
}

/** The text of guest-prelude-bundle.ts for the prelude and the URL library. */
export function bundleModule(prelude: string, urlLibrary: string): string {
  return (
    '// Generated by `npm run bundle` (sandbox/bundle-guest-prelude.ts) from sandbox/guest/: do not edit.\n' +
    '// The guest prelude as the one script each guest context evaluates before the program.\n' +
    `export const GUEST_PRELUDE_BUNDLE: string = ${JSON.stringify(prelude)};\n` +
    '// The URL library the prelude evaluates on first use of URL (guest/url.ts).\n' +
    `export const GUEST_URL_LIBRARY_BUNDLE: string = ${JSON.stringify(urlLibrary)};\n`
  );
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(OUTPUT, bundleModule(await bundleGuestPrelude(), await bundleUrlLibrary()));
  process.stdout.write(`wrote ${OUTPUT}\n`);
}
