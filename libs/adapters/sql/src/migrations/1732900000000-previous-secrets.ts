import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `webhooks.previous_secret_sealed` holds every rotated-out secret still within its grace, sealed
 * together (up to ten: about 1,300 characters sealed), no longer a single secret of 255 at most.
 * SQLite does not enforce a varchar's length, so only MySQL changes.
 */
export class PreviousSecrets1732900000000 implements MigrationInterface {
  name = 'PreviousSecrets1732900000000';

  async up(runner: QueryRunner): Promise<void> {
    if (runner.connection.driver.options.type !== 'mysql') return;
    await runner.query('ALTER TABLE webhooks MODIFY previous_secret_sealed VARCHAR(4096) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL');
  }

  async down(runner: QueryRunner): Promise<void> {
    if (runner.connection.driver.options.type !== 'mysql') return;
    await runner.query('ALTER TABLE webhooks MODIFY previous_secret_sealed VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL');
  }
}
