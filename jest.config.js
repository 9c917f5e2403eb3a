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
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.build-test/', '<rootDir>/.tools/'],
  // Room for a test doing real work (a sandbox process, esbuild, TypeScript) on a loaded
  // 2-core machine: the fresh-clone CI ran 2.7x slower than a quiet run at load ~15.
  testTimeout: 60000,
  maxWorkers: 2,
};
