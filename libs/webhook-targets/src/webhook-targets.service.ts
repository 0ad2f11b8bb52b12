import { Injectable } from '@nestjs/common';
import { characterCount, checkTargetUrl, Clock, echoed, isWellFormedText, NOT_TEXT, IdPage, IdPageQuery, invalidParameter, limitExceeded, looksLikeId, newId, notFound, readIdPage, SecretBox, UnitOfWork } from '../../kernel/src';
import { checkSigningKey, generateSigningKey } from './signing-key';
import { validateTargetHeaders } from './target-headers';
import { toTargetView, WebhookTarget, WebhookTargetInput, WebhookTargetView } from './webhook-target';
import { TargetUsage, WebhookTargetRepository } from './webhook-target.repository';
import { WebhookTargetsSettings } from './webhook-targets.settings';

const NAME_MAX = 200;

/**
 * Webhook targets (CONTRACT §6): CRUD scoped to the account, URL and address rules, custom headers,
 * and a signing key kept sealed and shown only in the response that generated it.
 *
 * PUT takes the create body: name and url are required; `headers`, when present, replace the set;
 * `signingKey` replaces the key, `null` removes it, absent keeps it; `generateSigningKey: true`
 * replaces it with a new generated key returned once. A target still called by a workflow cannot
 * be deleted (400 invalid_parameter naming the workflows).
 */
/** CONTRACT §9.6: the 101st target of an account is refused. */
export const MAX_TARGETS_PER_ACCOUNT = 100;

@Injectable()
export class WebhookTargetsService {
  constructor(
    private readonly targets: WebhookTargetRepository,
    private readonly usage: TargetUsage,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly settings: WebhookTargetsSettings,
    private readonly uow: UnitOfWork,
  ) {}

  async create(accountId: number, input: WebhookTargetInput): Promise<WebhookTargetView> {
    const fields = this.checkFields(input);
    const { sealed, generated } = this.keyFor(input, null);
    const now = this.clock.now();
    const target: WebhookTarget = { id: newId('tgt', now.getTime()), accountId, ...fields, headers: fields.headers ?? {}, signingKeySealed: sealed, createdAt: now, updatedAt: now };
    await this.uow.run(async () => {
      if ((await this.targets.countByAccount(accountId)) >= MAX_TARGETS_PER_ACCOUNT) throw limitExceeded(`an account has at most ${MAX_TARGETS_PER_ACCOUNT} webhook targets`);
      await this.targets.insert(target);
    });
    return toTargetView(target, generated);
  }

  async list(accountId: number, query: IdPageQuery = {}): Promise<IdPage<WebhookTargetView>> {
    const page = await readIdPage('tgt', query, (afterId, limit) => this.targets.listByAccount(accountId, afterId, limit));
    return { items: page.items.map((t) => toTargetView(t)), nextCursor: page.nextCursor };
  }

  async get(accountId: number, id: string): Promise<WebhookTargetView> {
    return toTargetView(await this.find(accountId, id));
  }

  async update(accountId: number, id: string, input: WebhookTargetInput): Promise<WebhookTargetView> {
    const fields = this.checkFields(input);
    return this.uow.run(async () => {
      const existing = await this.find(accountId, id, { lock: true });
      const { sealed, generated } = this.keyFor(input, existing.signingKeySealed);
      const target: WebhookTarget = {
        ...existing,
        name: fields.name,
        url: fields.url,
        headers: fields.headers ?? existing.headers,
        signingKeySealed: sealed,
        updatedAt: this.clock.now(),
      };
      await this.targets.update(target);
      return toTargetView(target, generated);
    });
  }

  async delete(accountId: number, id: string): Promise<void> {
    await this.uow.run(async () => {
      await this.find(accountId, id, { lock: true });
      const users = await this.usage.workflowsUsing(accountId, id);
      if (users.length > 0) {
        const names = users.map((w) => `${w.id} (${JSON.stringify(w.name)})`).join(', ');
        throw invalidParameter(`webhook target ${id} is used by workflow${users.length > 1 ? 's' : ''} ${names}: remove it from their steps first`);
      }
      await this.targets.delete(accountId, id);
    });
  }

  /** The target for a step of the account's workflow, or null when it no longer exists. */
  async findForStep(accountId: number, id: string): Promise<WebhookTarget | null> {
    return looksLikeId('tgt', id) ? this.targets.findById(accountId, id) : null;
  }

  /** `lock`: held until the unit of work ends, for a change built on what is read (WebhookTargetRepository.lockById). */
  private async find(accountId: number, id: string, { lock = false } = {}): Promise<WebhookTarget> {
    const target = !looksLikeId('tgt', id) ? null : lock ? await this.targets.lockById(accountId, id) : await this.targets.findById(accountId, id);
    if (!target) throw notFound(`webhook target ${echoed(id)} not found`);
    return target;
  }

  private checkFields(input: WebhookTargetInput): { name: string; url: string; headers?: Record<string, string> } {
    const name = typeof input.name === 'string' ? input.name.trim() : '';
    if (name.length === 0 || characterCount(name) > NAME_MAX) throw invalidParameter(`name must be 1 to ${NAME_MAX} characters`);
    if (!isWellFormedText(name)) throw invalidParameter(NOT_TEXT('name'));
    const check = checkTargetUrl(input.url, { allowPrivate: this.settings.allowPrivateTargets });
    if (!check.ok) throw invalidParameter(check.message);
    const headers = input.headers === undefined ? undefined : validateTargetHeaders(input.headers);
    return { name, url: input.url, ...(headers === undefined ? {} : { headers }) };
  }

  /** The sealed key to store, and the generated key to show once (when one was generated). */
  private keyFor(input: WebhookTargetInput, current: string | null): { sealed: string | null; generated?: string } {
    const generate = input.generateSigningKey === true;
    if (generate && typeof input.signingKey === 'string') {
      throw invalidParameter('give either signingKey or generateSigningKey, not both');
    }
    if (generate) {
      const key = generateSigningKey();
      return { sealed: this.secrets.seal(key), generated: key };
    }
    if (typeof input.signingKey === 'string') return { sealed: this.secrets.seal(checkSigningKey(input.signingKey)) };
    if (input.signingKey === null) return { sealed: null };
    return { sealed: current };
  }
}
