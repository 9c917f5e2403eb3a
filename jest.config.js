// Jest runs our ESM TypeScript natively as ESM (ts-jest ESM preset +
// --experimental-vm-modules, set in the npm "jest" script) so that ESM-only
// dependencies such as p-queue load unchanged. Type checking is a separate
// `tsc --noEmit` step in `npm test`; ts-jest only transpiles (isolatedModules).
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  // `ptc-source` resolves the package's own name (examples import `ptc-runtime`) to the
  // TypeScript sources instead of dist/, as tsconfig's customConditions does for tsc.
  testEnvironmentOptions: { customExportConditions: ['ptc-source', 'node', 'node-addons'] },
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // Does nothing unless PTC_TEST_CPU_LOG names a file (CPU per test file, for finding what is slow).
  setupFilesAfterEnv: ['<rootDir>/test/support/cpu-per-file.ts'],
  // Slow files first even without timings from an earlier run (a fresh clone).
  testSequencer: '<rootDir>/test/support/slow-files-first.cjs',
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.build-test/', '<rootDir>/.tools/'],
  // Room for a test doing real work (a sandbox process, esbuild, TypeScript) on a loaded
  // 2-core machine: the fresh-clone CI ran 2.7x slower than a quiet run at load ~15.
  testTimeout: 60000,
  // Three on two cores: a test file waits (for a deadline, a child, a server) for about a
  // quarter of its time, and a third file fills those waits. The whole suite took 658 s so
  // against 760 s with two (quiet machine, 2,392 tests).
  maxWorkers: 3,
  // A worker keeps part of every test file it ran (its heap after a full GC grows 6-25 MB a
  // file, past 500 MB in a long run); V8 tearing down such a worker at the end (unmapping its
  // pages) took over jest's 500 ms graceful-exit window on a loaded machine: "A worker process
  // has failed to exit gracefully". A worker past this size after a file is replaced instead.
  workerIdleMemoryLimit: '512MB',
};
