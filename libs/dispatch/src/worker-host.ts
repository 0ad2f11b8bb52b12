import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { WorkHandler, WorkQueue, WorkSubscription } from '../../kernel/src';

/** What the worker host needs from the configuration (built by the app that composes it). */
export class WorkerHostSettings {
  constructor(
    /** Items held at once per topic, for handlers that do not say (DISPATCHER_CONCURRENCY). */
    readonly concurrency: number,
    /** WORK_MAX_HANDLER_FAILURES. */
    readonly maxHandlerFailures: number,
    /** How long shutdown waits for in-flight items before releasing them. */
    readonly shutdownGraceMs: number,
  ) {}
}

/**
 * Subscribes every WorkHandler provider of the application to its queue topic: a module that
 * provides a handler is all it takes, nothing lists them. On shutdown it stops taking work and
 * lets in-flight items finish within the grace period, or releases them.
 */
@Injectable()
export class WorkerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Dispatcher');
  private subscriptions: WorkSubscription[] = [];
  private subscribed: WorkHandler[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly queue: WorkQueue,
    private readonly settings: WorkerHostSettings,
  ) {}

  handlers(): WorkHandler[] {
    const found = this.discovery
      .getProviders()
      .map((wrapper) => wrapper.instance as unknown)
      .filter((instance): instance is WorkHandler => instance instanceof WorkHandler);
    return [...new Set(found)];
  }

  async onApplicationBootstrap(): Promise<void> {
    const handlers = (this.subscribed = this.handlers());
    const topics = handlers.map((h) => h.topic);
    const repeated = topics.find((topic, i) => topics.indexOf(topic) !== i);
    if (repeated) throw new Error(`two work handlers consume the topic ${repeated}`);
    for (const handler of handlers) {
      this.subscriptions.push(
        await this.queue.consume(handler.topic, (work) => handler.handle(work), {
          concurrency: handler.maxInFlight ?? this.settings.concurrency,
          spareCapacity: handler.spareCapacity ? () => handler.spareCapacity!() : undefined,
          maxHandlerFailures: this.settings.maxHandlerFailures,
          giveUp: handler.giveUp ? (work, reason) => handler.giveUp!(work, reason) : undefined,
          postpone: handler.postpone ? (work, at) => handler.postpone!(work, at) : undefined,
        }),
      );
    }
    this.logger.log({ msg: 'consuming', topics });
  }

  async beforeApplicationShutdown(): Promise<void> {
    const subscriptions = this.subscriptions;
    this.subscriptions = [];
    // Handlers first: work they hold but have not started (parked behind a busy receiver) is handed
    // back at once, and only calls already under way use the grace.
    for (const handler of this.subscribed) handler.stop?.();
    await Promise.all(subscriptions.map((s) => s.stop(this.settings.shutdownGraceMs)));
    this.logger.log('stopped: in-flight work finished or released');
  }
}
