import { InMemoryJobLease, ManualClock } from '../../kernel/src/testing/kernel-fakes';
import { ACCOUNT_DELETION_GRACE_MS } from './account-deletion';
import { AccountDeletionFinisher } from './account-deletion-finisher';
import { InMemoryAccountDeletion, InMemoryAccountRepository, InMemoryApiKeyRepository } from './testing/in-memory-accounts';

describe(AccountDeletionFinisher.name, () => {
  it('finishes a deletion once its grace has passed, one process at a time', async () => {
    const accounts = new InMemoryAccountRepository();
    const deletion = new InMemoryAccountDeletion(accounts, new InMemoryApiKeyRepository(accounts));
    const clock = new ManualClock();
    const lease = new InMemoryJobLease();
    const finisher = new AccountDeletionFinisher(deletion, lease, clock);
    const doomed = await accounts.create('Doomed', clock.now());
    const kept = await accounts.create('Kept', clock.now());
    expect(await deletion.delete(doomed.id, clock.now())).toBe(true);

    clock.advance(ACCOUNT_DELETION_GRACE_MS - 1);
    expect(await finisher.finish()).toBe(0);
    expect(accounts.rows.map((a) => a.id)).toEqual([doomed.id, kept.id]);

    clock.advance(1);
    expect(await lease.acquire('account-deletion', 'another process', clock.now(), 60_000)).toBe(true);
    expect(await finisher.finish()).toBe(0);
    await lease.release('account-deletion', 'another process');
    expect(await finisher.finish()).toBe(1);
    expect(accounts.rows.map((a) => a.id)).toEqual([kept.id]);
    expect(await deletion.delete(doomed.id, clock.now())).toBe(false);
  });
});
