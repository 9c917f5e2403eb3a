// The committed prelude bundle is exactly what the TypeScript sources in sandbox/guest/
// bundle to: a change to the guest that was not re-bundled fails here, on every Node line
// (bundling does not depend on the Node that runs it). The URL library is bundled apart
// from the prelude, as one function expression.
import { describe, expect, it } from '@jest/globals';
import { bundleGuestPrelude, bundleUrlLibrary } from '../../sandbox/bundle-guest-prelude.ts';
import { GUEST_PRELUDE_BUNDLE, GUEST_URL_LIBRARY_BUNDLE } from '../../sandbox/guest-prelude-bundle.ts';

describe('guest prelude bundle', () => {
  it('is up to date with sandbox/guest/ (run `npm run bundle` after changing it)', async () => {
    expect(await bundleGuestPrelude()).toBe(GUEST_PRELUDE_BUNDLE);
    expect(await bundleUrlLibrary()).toBe(GUEST_URL_LIBRARY_BUNDLE);
  });

  it('keeps the URL library out of the prelude: one function expression of ASCII, nothing of the host', () => {
    expect(GUEST_PRELUDE_BUNDLE).not.toMatch(/whatwg|tr46|punycode/);
    expect(GUEST_URL_LIBRARY_BUNDLE).toMatch(/^\(function\(__ptc_url_encoding,__ptc_url_intrinsics\)\{"use strict";/);
    expect(GUEST_URL_LIBRARY_BUNDLE.endsWith('return module.exports})')).toBe(true);
    expect(Buffer.byteLength(GUEST_URL_LIBRARY_BUNDLE, 'utf8')).toBe(GUEST_URL_LIBRARY_BUNDLE.length);
    expect(GUEST_URL_LIBRARY_BUNDLE).not.toMatch(/\brequire\(|\bimport\(|node:/);
  });

  it('is one strict-mode script that leaves no bindings in the guest global scope', () => {
    expect(GUEST_PRELUDE_BUNDLE.startsWith('"use strict";(()=>{')).toBe(true);
    expect(GUEST_PRELUDE_BUNDLE.trimEnd().endsWith('})();')).toBe(true);
    // A one-byte string in every isolate (a single other character would double it).
    expect(Buffer.byteLength(GUEST_PRELUDE_BUNDLE, 'utf8')).toBe(GUEST_PRELUDE_BUNDLE.length);
    // Nothing of the host: the guest modules import only each other and the shared protocol.
    expect(GUEST_PRELUDE_BUNDLE).not.toMatch(/\brequire\(|\bimport\(|node:/);
  });
});
