/** Two tiers: unit tests beside the code, and suites under test/ that talk to real servers. */
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true }] };
module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/{apps,libs,config}/**/*.spec.ts'],
      transform,
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/test/**/*.int-spec.ts'],
      transform,
      testTimeout: 60000,
    },
  ],
};
