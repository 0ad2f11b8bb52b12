import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Until this release a failed attempt was recorded `cancelled`, as if its webhook were deleted,
 * when a success on the same webhook ended its batch of recorded attempts (AttemptRecorder took the
 * webhook's missing failure count for a missing webhook). Only a deleted webhook cancels, so a
 * cancelled delivery whose webhook still exists is one of those: it is put back to `retrying`, due
 * now, and the DeliverySweeper queues it within DELIVERY_SWEEP_AFTER, at the retry step it had.
 * A webhook disabled meanwhile has it `skipped` at its turn, as for any waiting delivery.
 */
export class RetryDeliveriesCancelledByTally1732800000100 implements MigrationInterface {
  name = 'RetryDeliveriesCancelledByTally1732800000100';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `UPDATE deliveries SET status = 'retrying', next_attempt_at = ?, claimed_until = NULL, claim_token = NULL
       WHERE status = 'cancelled' AND webhook_id IN (SELECT id FROM webhooks)`,
      [Date.now()],
    );
  }

  async down(): Promise<void> {
    // Deliveries owed their attempts: nothing to undo.
  }
}
