/** Two tiers: unit tests beside the code, and suites under test/ that talk to real servers. */
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true }],
  // content-disposition 3 (under @fastify/static, which serves the /docs page) ships ESM only;
  // Node 20 can require() it, jest's module loader cannot, so it is compiled to CommonJS here.
  '/node_modules/content-disposition/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022' }, isolatedModules: true }],
};
const transformIgnorePatterns = ['/node_modules/(?!content-disposition/)'];

module.exports = {
  // A global option: jest ignores testTimeout inside projects[].
  testTimeout: 60000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/{apps,libs,config}/**/*.spec.ts'],
      transform,
      transformIgnorePatterns,
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/test/**/*.int-spec.ts'],
      transform,
      transformIgnorePatterns,
    },
    {
      // Fault injection on the built apps as separate processes (MariaDB + NATS): `npm run test:faults`.
      displayName: 'faults',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/test/faults/**/*.fault-spec.ts'],
      // The table of every case (case, accepted, delivered, lost, duplicates, recovery) is printed
      // and written to test-output/faults-table.md after the last fault file.
      globalSetup: '<rootDir>/test/faults/global-setup.ts',
      globalTeardown: '<rootDir>/test/faults/global-teardown.ts',
      transform,
      transformIgnorePatterns,
    },
  ],
};
