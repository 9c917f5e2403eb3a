// URL and URLSearchParams: the WHATWG URL Standard's reference implementation
// (`whatwg-url`, with `tr46` for international domain names), evaluated on first use
// only (the globals are lazy, as several of Node's are). Its text (two thirds of all
// the guest's code) is not part of the prelude: the host hands every isolate the same
// copy (URL_LIBRARY_GLOBAL), and a program that never touches URL never compiles it.
// Errors are worded as Node's (TypeError ERR_INVALID_URL "Invalid URL" with `input`).
import { URL_LIBRARY_GLOBAL } from '../guest-protocol.ts';
import { apply, construct, defineProperty, globalEval, TypeErrorCtor } from './intrinsics.ts';
import { missingArgs, nodeTypeError } from './node-errors.ts';
import { utf8DecodeWithoutBOM, utf8Encode } from './url-encoding.ts';
import { captureUrlIntrinsics, type UrlIntrinsics } from './url-intrinsics.ts';

type UrlClass = (new (
  url: string,
  base?: string,
) => object) & {
  canParse(url: string, base?: string): boolean;
  parse(url: string, base?: string): object | null;
};
interface UrlModule {
  readonly URL: UrlClass;
  readonly URLSearchParams: new (init?: unknown) => object;
}
/**
 * What the library's text evaluates to (bundle-guest-prelude.ts): a function of the
 * prelude's UTF-8 codec and of the built-ins captured before any program ran.
 */
type UrlLibrary = (
  encoding: {
    readonly utf8Encode: typeof utf8Encode;
    readonly utf8DecodeWithoutBOM: typeof utf8DecodeWithoutBOM;
  },
  intrinsics: UrlIntrinsics,
) => UrlModule;

const hasInstance = Function.prototype[Symbol.hasInstance];

/** The library's text, taken from the global the host installed before the prelude. */
let librarySource: string | undefined;
/** The guest's global object, and the built-ins the library reads as captured from it. */
let globalScope: Record<string, unknown> | undefined;
let intrinsics: UrlIntrinsics | undefined;
let loaded: UrlModule | undefined;

function invalidUrl(input: unknown, base: unknown, hasBase: boolean): TypeError {
  const error = nodeTypeError('ERR_INVALID_URL', 'Invalid URL');
  defineProperty(error, 'input', {
    value: '' + (input as string),
    writable: true,
    enumerable: true,
    configurable: true,
  });
  if (hasBase)
    defineProperty(error, 'base', {
      value: '' + (base as string),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  return error;
}

function load(): UrlModule {
  if (loaded !== undefined) return loaded;
  if (globalScope !== undefined) captureUrlBuiltins();
  if (librarySource === undefined || intrinsics === undefined)
    throw nodeTypeError('ERR_INVALID_STATE', 'URL is not available in this sandbox');
  const library = apply(globalEval, undefined, [librarySource]) as UrlLibrary;
  const lib = library({ __proto__: null, utf8Encode, utf8DecodeWithoutBOM } as never, intrinsics);
  const Base = lib.URL;
  class URL extends Base {
    constructor(url: string, base?: string) {
      // biome-ignore lint/complexity/noArguments: how many arguments were passed is observable (as in Node)
      const count = arguments.length;
      if (count === 0) throw missingArgs('url');
      const hasBase = count > 1 && base !== undefined;
      try {
        // Two calls, no spread: a spread would run Array.prototype[Symbol.iterator], which the program can replace.
        if (hasBase) super(url, base);
        else super(url);
      } catch (error) {
        if (apply(hasInstance, TypeErrorCtor, [error])) throw invalidUrl(url, base, hasBase);
        throw error;
      }
    }
    static override parse(url: string, base?: string): URL | null {
      // biome-ignore lint/complexity/noArguments: how many arguments were passed is observable (as in Node)
      const count = arguments.length;
      if (count === 0) throw missingArgs('url');
      try {
        return construct(URL, count > 1 ? [url, base] : [url]) as URL;
      } catch {
        return null;
      }
    }
  }
  defineProperty(URL, 'length', { value: 1, configurable: true });
  loaded = { URL: URL as unknown as UrlClass, URLSearchParams: lib.URLSearchParams };
  return loaded;
}

/**
 * Captures the built-ins the library reads (once). Run before the program when its text
 * names URL (guest-main.ts configure), else on first use: capturing them in every isolate
 * costs ~1 ms of its preparation, and most programs never touch URL.
 */
export function captureUrlBuiltins(): void {
  if (intrinsics === undefined && globalScope !== undefined) intrinsics = captureUrlIntrinsics(globalScope);
}

/** Defines URL and URLSearchParams on `scope`, loaded the first time either is read. */
export function installUrl(scope: Record<string, unknown>): void {
  const source = scope[URL_LIBRARY_GLOBAL];
  delete scope[URL_LIBRARY_GLOBAL];
  if (typeof source === 'string') librarySource = source;
  globalScope = scope;
  for (let i = 0; i < 2; i++) {
    const name = i === 0 ? 'URL' : 'URLSearchParams';
    defineProperty(scope, name, {
      get(): unknown {
        const value = load()[name];
        defineProperty(scope, name, { value, writable: true, enumerable: false, configurable: true });
        return value;
      },
      set(value: unknown): void {
        defineProperty(scope, name, { value, writable: true, enumerable: false, configurable: true });
      },
      enumerable: false,
      configurable: true,
    });
  }
}
