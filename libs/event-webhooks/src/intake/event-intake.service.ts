import { Injectable } from '@nestjs/common';
import { AccountRepository } from '../../../accounts/src';
import { Clock, EventPublisher, flatten, GroupCommit, newId, NewEvent, UnitOfWork, WorkQueue } from '../../../kernel/src';
import { EventCatalog } from '../catalog/event-catalog';
import { isWaiting } from '../deliveries/delivery';
import { DeliveryObserver } from '../deliveries/delivery-observer';
import { DeliveryRepository } from '../deliveries/delivery.repository';
import { deliveryWorkItem } from '../deliveries/delivery-work';
import { accountNotFound, webhookLimitExceeded } from '../event-webhooks.errors';
import { subscribes, Webhook } from '../webhooks/webhook';
import { WebhookRepository } from '../webhooks/webhook.repository';
import { EnvelopeSource } from './envelope';
import { eventKey, EventRepository } from './event.repository';
import { fanOut } from './fan-out';
import { checkNewEvent, MAX_EVENTS_PER_BATCH } from './new-event';

/** Requests of producers gathered into one transaction at most. */
const MAX_REQUESTS_PER_GROUP = 64;

/**
 * Accepts account events (the kernel's EventPublisher): validates them, stores each event with
 * one delivery per subscribed webhook and hands the due deliveries to the queue, all in one
 * transaction, so nothing is half-accepted. Concurrent requests share that transaction (group
 * commit): each still returns only once its events are committed. Called inside a caller's unit of
 * work, the events join the caller's transaction instead.
 */
@Injectable()
export class EventIntakeService extends EventPublisher {
  private readonly groups: GroupCommit<NewEvent[], string[]>;

  constructor(
    private readonly catalog: EventCatalog,
    private readonly accounts: AccountRepository,
    private readonly webhooks: WebhookRepository,
    private readonly events: EventRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly queue: WorkQueue,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly observer: DeliveryObserver,
  ) {
    super();
    this.groups = new GroupCommit((requests) => this.publishTogether(requests), { maxSize: MAX_REQUESTS_PER_GROUP, maxConcurrent: 2 });
  }

  /** Returns the ids in the order given; an id that was already accepted is accepted again without a second fan-out. */
  async publish(events: NewEvent[]): Promise<string[]> {
    if (events.length > MAX_EVENTS_PER_BATCH) {
      throw webhookLimitExceeded(`a batch holds at most ${MAX_EVENTS_PER_BATCH} events, got ${events.length}`);
    }
    if (events.length === 0) return [];
    const nowMs = this.clock.nowMs();
    const checked = events.map((event, index) => checkNewEvent(event, this.catalog, nowMs, events.length > 1 ? `events[${index}].` : ''));
    if (this.uow.inTransaction()) return (await this.publishTogether([checked]))[0];
    return this.groups.submit(checked);
  }

  /** A sample event of `type` to this webhook alone (the `test` route); its delivery is flagged as a test. */
  async publishSample(webhook: Webhook, type: string): Promise<string> {
    const account = await this.accounts.findById(webhook.accountId);
    if (!account) throw accountNotFound(webhook.accountId);
    const now = this.clock.now();
    const event: EnvelopeSource = {
      id: newId('evt', now.getTime()),
      type,
      created: Math.floor(now.getTime() / 1000),
      account: { id: account.id, name: account.name },
      data: this.catalog.get(type)!.example,
    };
    await this.uow.run(() => this.store([event], () => [webhook], now, { test: true }));
    return event.id;
  }

  /**
   * An operational event (CONTRACT §9.1) about `webhook`, to the account's webhooks subscribed to
   * its type except that one. Joins the caller's unit of work: the event exists only if what it
   * reports is committed.
   */
  async publishAbout(webhook: Webhook, type: string, data: Record<string, unknown>): Promise<string> {
    const [accountNames, webhooks] = await Promise.all([this.accountNames([webhook.accountId]), this.webhooks.listForAccount(webhook.accountId)]);
    const now = this.clock.now();
    const event: EnvelopeSource = {
      id: newId('evt', now.getTime()),
      type,
      created: Math.floor(now.getTime() / 1000),
      account: { id: webhook.accountId, name: accountNames.get(webhook.accountId)! },
      data,
    };
    const others = webhooks.filter((w) => w.id !== webhook.id && subscribes(w, type));
    await this.uow.run(() => this.store([event], () => others, now, { test: false }));
    return event.id;
  }

  private async publishTogether(requests: NewEvent[][]): Promise<string[][]> {
    const accountIds = [...new Set(flatten(requests).map((e) => e.accountId))];
    // Both reads at once (two round trips in parallel, not one after the other), before the
    // transaction opens, so that its first statement is a write (SQLite upgrades a read transaction
    // to a write one only if no other process wrote meanwhile). A webhook disabled or deleted in
    // between is caught by the worker, which checks the delivery's webhook before each attempt.
    const [accountNames, webhooks] = await Promise.all([this.accountNames(accountIds), this.webhooks.listForAccounts(accountIds)]);
    const now = this.clock.now();
    const created = Math.floor(now.getTime() / 1000);
    const sources = requests.map((events) =>
      events.map(
        (event): EnvelopeSource => ({
          id: event.id ?? newId('evt', now.getTime()),
          type: event.type,
          created: event.created ?? created,
          account: { id: event.accountId, name: accountNames.get(event.accountId)! },
          data: event.data,
        }),
      ),
    );
    const byAccount = groupByAccount(webhooks);
    const targetsOf = (event: EnvelopeSource) => (byAccount.get(event.account.id) ?? []).filter((w) => subscribes(w, event.type));
    await this.uow.run(() => this.store(flatten(sources), targetsOf, now, { test: false }));
    return sources.map((events) => events.map((s) => s.id));
  }

  private async store(sources: EnvelopeSource[], targetsOf: (event: EnvelopeSource) => Webhook[], now: Date, options: { test: boolean }): Promise<void> {
    const plans = uniqueEvents(sources).map((event) => fanOut(event, targetsOf(event), now, options));
    const inserted = await this.events.insertNew(plans.map((p) => p.event));
    const stored = plans.filter((p) => inserted.has(eventKey(p.event)));
    this.uow.afterCommit(() => this.countAccepted(stored.map((p) => p.event.type)));
    const deliveries = stored.flatMap((p) => p.deliveries);
    if (deliveries.length === 0) return;
    await this.deliveries.insertMany(deliveries);
    const due = deliveries.filter((d) => isWaiting(d.status));
    if (due.length > 0) await this.queue.enqueue(due.map((d) => deliveryWorkItem(d.id, d.seq, d.nextAttemptAt!, { webhookId: d.webhookId, accountId: d.accountId })));
  }

  private countAccepted(types: string[]): void {
    const counts = new Map<string, number>();
    for (const type of types) counts.set(type, (counts.get(type) ?? 0) + 1);
    try {
      for (const [type, count] of counts) this.observer.accepted(type, count);
    } catch {
      // metrics are best-effort
    }
  }

  /** Names of the accounts; an unknown one fails the request that names it. */
  private async accountNames(ids: number[]): Promise<Map<number, string>> {
    const distinct = [...new Set(ids)];
    const accounts = await Promise.all(distinct.map((id) => this.accounts.findById(id)));
    const names = new Map<number, string>();
    accounts.forEach((account, index) => {
      if (!account) throw accountNotFound(distinct[index]);
      names.set(account.id, account.name);
    });
    return names;
  }
}

function groupByAccount(webhooks: Webhook[]): Map<number, Webhook[]> {
  const map = new Map<number, Webhook[]>();
  for (const webhook of webhooks) map.set(webhook.accountId, [...(map.get(webhook.accountId) ?? []), webhook]);
  return map;
}

/** A batch that repeats an id is accepted once for that id, like a repeat across calls. */
function uniqueEvents(sources: EnvelopeSource[]): EnvelopeSource[] {
  const seen = new Set<string>();
  return sources.filter((s) => {
    const key = eventKey({ accountId: s.account.id, id: s.id });
    return !seen.has(key) && seen.add(key);
  });
}
