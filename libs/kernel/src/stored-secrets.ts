import { DomainError } from './errors';
import { SecretBox } from './secret-box';

/** One sealed value where storage keeps it. */
export interface SealedSecret {
  /** Where it is kept (e.g. `webhooks.secret_sealed`); pages are per place. */
  place: string;
  id: string;
  sealed: string;
}

/** Every sealed value the storage holds, for checking and resealing them (CONTRACT §9.6). */
export abstract class SealedSecretStore {
  /** The places that hold sealed values. */
  abstract places(): readonly string[];
  /** Up to `limit` sealed values of `place` with ids after `afterId` (null: from the start), by id. */
  abstract page(place: string, afterId: string | null, limit: number): Promise<SealedSecret[]>;
  /** Replaces a sealed value if it is still the one read; false when it changed meanwhile. */
  abstract replace(secret: SealedSecret, resealed: string): Promise<boolean>;
  /** Deletes the key the installation kept for itself (used while SECRETS_KEY was unset); false if none. */
  abstract forgetInstallationKey(): Promise<boolean>;
  /**
   * How many of the contract's secrets one opened value of `place` holds: what `secrets reseal`
   * counts (a webhook's rotated-out secrets share one value; custom header values are sealed too,
   * but they are not among the secrets the contract lists).
   */
  abstract secretsIn(place: string, opened: string): number;
}

const PAGE = 500;

/** Checks and reseals the stored secrets with the key ring of a SecretBox. */
export class StoredSecrets {
  constructor(
    private readonly store: SealedSecretStore,
    private readonly box: SecretBox,
  ) {}

  /** How many stored secrets open with none of the ring's keys (a server holding one must not start). */
  async countUnopenable(): Promise<number> {
    let unopenable = 0;
    for await (const secret of this.all()) if (this.box.tryOpen(secret.sealed) === null) unopenable++;
    return unopenable;
  }

  /**
   * Seals every stored secret that is not sealed with the first key again with it, then deletes the
   * self-kept installation key (nothing needs it any more). Returns how many were resealed. Throws
   * before changing anything it cannot open.
   */
  async reseal(): Promise<number> {
    const unopenable = await this.countUnopenable();
    if (unopenable > 0) {
      throw new DomainError('invalid_parameter', `SECRETS_KEY: ${unopenable} sealed value(s) (secrets, signing keys, custom headers) open with none of the keys; nothing was resealed`);
    }
    let resealed = 0;
    for await (const secret of this.all()) {
      if (this.box.sealedWithFirstKey(secret.sealed)) continue;
      // A value changed meanwhile (a rotation) was sealed with the first key by whoever changed it.
      const opened = this.box.open(secret.sealed);
      if (await this.store.replace(secret, this.box.seal(opened))) resealed += this.store.secretsIn(secret.place, opened);
    }
    await this.store.forgetInstallationKey();
    return resealed;
  }

  private async *all(): AsyncGenerator<SealedSecret> {
    for (const place of this.store.places()) {
      let afterId: string | null = null;
      for (;;) {
        const page: SealedSecret[] = await this.store.page(place, afterId, PAGE);
        yield* page;
        if (page.length < PAGE) break;
        afterId = page[page.length - 1].id;
      }
    }
  }
}
