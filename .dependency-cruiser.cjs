/** The dependency rule of docs/architecture.md, checked by `npm test`. */
const DOMAIN_LIBS = '^libs/(kernel|accounts|signing|event-webhooks|send-status|webhook-targets|incoming-trigger|automations)/';

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
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(\\.spec\\.ts$|/fixtures/)' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
