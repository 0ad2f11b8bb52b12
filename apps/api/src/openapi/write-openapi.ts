import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../../config/load-config';
import { createLogger } from '../../../../libs/adapters/logging/logger';
import { createApiApp } from '../create-api-app';
import { generateToken } from '../../../../libs/kernel/src/credentials';
import { OperatorTokens } from '../http/operator-tokens';
import { buildOpenApiDocument } from './openapi-document';

/** The document as committed in docs/openapi.json: stable key order as built, two-space indent. */
export function serializeOpenApi(document: object): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * `npm run openapi`: writes the OpenAPI document (default docs/openapi.json) from the app itself,
 * created on a throw-away SQLite file and never listening.
 */
async function main(out: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  try {
    const config = loadConfig({ STORAGE: 'sqlite', SQLITE_PATH: join(dir, 'openapi.db'), QUEUE: 'database', DISPATCHER_ENABLED: 'false', LOG_LEVEL: 'error' });
    const app = await createApiApp({ config, tokens: new OperatorTokens(generateToken(), generateToken()), logger: createLogger('error') });
    try {
      writeFileSync(out, serializeOpenApi(await buildOpenApiDocument(app)));
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main(process.argv[2] ?? 'docs/openapi.json').catch((error: unknown) => {
    process.stderr.write(`openapi: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
