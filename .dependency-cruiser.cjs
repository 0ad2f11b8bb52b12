/** The dependency rule of docs/architecture.md, checked by `npm test`. */
const DOMAIN_LIBS = '^libs/(kernel|accounts|signing|event-webhooks|send-status|webhook-targets|incoming-trigger|automations)/';
/** Libs other code imports by their index: the domain libs and libs/dispatch. */
const INDEXED_LIBS = '^libs/(kernel|accounts|signing|event-webhooks|send-status|webhook-targets|incoming-trigger|automations|dispatch)/';
/** Test code and test support: the fakes in `testing/`, specs, and test/. */
const TEST_CODE = ['\\.(spec|int-spec|e2e-spec|fault-spec)\\.ts$', '^test/', '/testing/'];

module.exports = {
  forbidden: [
    {
      name: 'domain-free-of-infrastructure',
      comment: 'Domain libs talk to the world through ports; adapters live in libs/adapters.',
      severity: 'error',
      from: { path: DOMAIN_LIBS },
      to: { path: '(^|/)node_modules/(@nestjs/platform-[^/]+|typeorm|mysql2|better-sqlite3|nats|@nats-io/[^/]+|undici|fastify)/' },
    },
    {
      name: 'domain-free-of-adapters',
      severity: 'error',
      from: { path: DOMAIN_LIBS },
      to: { path: '^libs/adapters/' },
    },
    {
      name: 'apps-never-import-other-apps',
      comment: 'The apps compose libs; what two apps share lives in a lib (e.g. libs/dispatch, the worker host).',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'libs-never-import-apps',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'signing-has-no-dependencies',
      comment: 'libs/signing is the package webhook-server-signing, with no dependencies: node built-ins only.',
      severity: 'error',
      from: { path: '^libs/signing/' },
      to: { pathNot: ['^libs/signing/', '^node:', '^(crypto|buffer)$'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      comment: 'A production file nothing imports is dead code (entry points and declaration files aside).',
      severity: 'error',
      from: { orphan: true, pathNot: ['\\.d\\.ts$', '(^|/)main\\.tsx?$', '^apps/api/src/cli\\.ts$', '^apps/api/src/openapi/write-openapi\\.ts$', 'vite\\.config\\.ts$'] },
      to: {},
    },
    {
      name: 'domain-never-reads-config',
      comment: 'Domain libs receive their settings (libs/adapters/domain-settings.ts builds them from the config).',
      severity: 'error',
      from: { path: DOMAIN_LIBS },
      to: { path: '^config/' },
    },
    {
      name: 'other-libs-through-their-index',
      comment: "A lib's internals are its own: the other libs import its index (libs/adapters, which implements the ports, aside; fakes aside).",
      severity: 'error',
      from: { path: '^libs/([^/]+)/', pathNot: ['^libs/adapters/', ...TEST_CODE] },
      to: { path: `${INDEXED_LIBS}src/.+`, pathNot: ['^libs/$1/', '^libs/[^/]+/src/index\\.ts$'] },
    },
    {
      name: 'production-never-imports-testing',
      severity: 'error',
      from: { pathNot: TEST_CODE },
      to: { path: '/testing/' },
    },
    {
      name: 'production-never-imports-dev-dependencies',
      comment: 'The server runs on dependencies alone (apps/web is bundled at build time, its packages are dev dependencies).',
      severity: 'error',
      from: { pathNot: [...TEST_CODE, '^apps/web/', '^tools/'] },
      to: { dependencyTypes: ['npm-dev'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(\\.spec\\.ts$|/fixtures/)' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
