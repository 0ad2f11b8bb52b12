import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';
import { SealedSecret, SealedSecretStore, StoredSecrets } from './stored-secrets';

/** Sealed values in memory, as the SQL adapter pages and replaces them. */
class InMemorySealedSecrets extends SealedSecretStore {
  readonly values = new Map<string, SealedSecret>();
  installationKeyForgotten = false;
  places() {
    return ['a', 'b', 'c', 'd'];
  }
  async page(place: string, afterId: string | null, limit: number) {
    return [...this.values.values()].filter((s) => s.place === place && (afterId === null || s.id > afterId)).sort((x, y) => (x.id < y.id ? -1 : 1)).slice(0, limit);
  }
  async replace(secret: SealedSecret, resealed: string) {
    const key = `${secret.place}/${secret.id}`;
    if (this.values.get(key)?.sealed !== secret.sealed) return false;
    this.values.set(key, { ...secret, sealed: resealed });
    return true;
  }
  async forgetInstallationKey() {
    this.installationKeyForgotten = true;
    return true;
  }
  /** Place `c` holds lists of secrets, as a webhook's rotated-out secrets are kept; `d` values that are no secret. */
  secretsIn(place: string, opened: string) {
    return place === 'c' ? opened.split(',').length : place === 'd' ? 0 : 1;
  }
  add(place: string, id: string, sealed: string) {
    this.values.set(`${place}/${id}`, { place, id, sealed });
  }
}

describe('SecretBox key ring and StoredSecrets', () => {
  const [older, newer, stranger] = [randomBytes(32), randomBytes(32), randomBytes(32)];

  it('seals with the first key and opens with any key of the ring', () => {
    const sealedByOlder = new SecretBox(older).seal('whsec_old');
    const ring = new SecretBox([newer, older]);
    expect(ring.open(sealedByOlder)).toBe('whsec_old');
    expect(new SecretBox(newer).open(ring.seal('whsec_new'))).toBe('whsec_new');
    expect(ring.sealedWithFirstKey(sealedByOlder)).toBe(false);
    expect(new SecretBox(stranger).tryOpen(sealedByOlder)).toBeNull();
    expect(() => new SecretBox(stranger).open(sealedByOlder)).toThrow(/none of the keys/);
  });

  it('counts the stored secrets no key opens, and reseals the others to the first key (over several pages)', async () => {
    const store = new InMemorySealedSecrets();
    for (let i = 0; i < 1201; i++) store.add(i % 2 ? 'a' : 'b', `id-${String(i).padStart(5, '0')}`, new SecretBox(i % 3 ? older : newer).seal(`secret-${i}`));
    const ring = new SecretBox([newer, older]);
    const sut = new StoredSecrets(store, ring);
    expect(await sut.countUnopenable()).toBe(0);
    expect(await new StoredSecrets(store, new SecretBox(stranger)).countUnopenable()).toBe(1201);

    expect(await sut.reseal()).toBe(800);
    expect(store.installationKeyForgotten).toBe(true);
    const onlyNewer = new SecretBox(newer);
    for (const [key, secret] of store.values) expect(onlyNewer.open(secret.sealed)).toBe(`secret-${Number(key.split('-')[1])}`);
    expect(await sut.reseal()).toBe(0);
  });

  it('counts the secrets it resealed, not the sealed values: a list counts each of its secrets, a value that is no secret none', async () => {
    const store = new InMemorySealedSecrets();
    store.add('a', 'one', new SecretBox(older).seal('whsec_1'));
    store.add('c', 'list', new SecretBox(older).seal('whsec_2,whsec_3,whsec_4'));
    store.add('d', 'headers', new SecretBox(older).seal('{"Authorization":"Bearer x"}'));
    expect(await new StoredSecrets(store, new SecretBox([newer, older])).reseal()).toBe(4);
    expect(new SecretBox(newer).open(store.values.get('d/headers')!.sealed)).toBe('{"Authorization":"Bearer x"}');
  });

  it('reseals nothing when a stored secret opens with no key', async () => {
    const store = new InMemorySealedSecrets();
    store.add('a', 'x', new SecretBox(stranger).seal('lost'));
    store.add('a', 'y', new SecretBox(older).seal('kept'));
    await expect(new StoredSecrets(store, new SecretBox([newer, older])).reseal()).rejects.toThrow(/SECRETS_KEY: 1 sealed value/);
    expect(store.installationKeyForgotten).toBe(false);
    expect(new SecretBox(older).open(store.values.get('a/y')!.sealed)).toBe('kept');
  });
});
