import { DynamicModule, Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../../config/load-config';
import { APP_CONFIG } from '../../config/config.token';
import { Clock, OutboundHttp, SecretBox, SystemClock, UnitOfWork, WorkQueue } from '../kernel/src';
import { AutomationObserver } from '../automations/src/automation-observer';
import { AUTOMATION_STEP_TOPIC } from '../automations/src/run-step-work';
import { DeliveryObserver } from '../event-webhooks/src/deliveries/delivery-observer';
import { DELIVERY_TOPIC } from '../event-webhooks/src/deliveries/delivery-work';
import { DeliveryRepository } from '../event-webhooks/src/deliveries/delivery.repository';
import { WebhookRepository } from '../event-webhooks/src/webhooks/webhook.repository';
import { domainSettingsProviders } from './domain-settings';
import { UndiciOutboundHttp } from './http/src';
import { Metrics } from './metrics/metrics';
import { PrometheusAutomationObserver } from './metrics/prometheus-automation-observer';
import { PrometheusDeliveryObserver } from './metrics/prometheus-delivery-observer';
import { registerStorageGauges } from './metrics/storage-gauges';
import { IdleHeapCompaction } from './runtime/idle-heap-compaction';
import { ClosableWorkQueue, createWorkQueue } from './queue/src/queue.factory';
import { migrationsAppliedLine, openDatabase } from './sql/src/data-source.factory';
import { openSecretBox } from './sql/src/secret-ring';
import { TypeormDatabase } from './sql/src/typeorm-database';
import { typeormRepositoryProviders } from './sql/src/typeorm-repositories';
import { TypeormUnitOfWork } from './sql/src/typeorm-unit-of-work';

const USER_AGENT = 'WebhookServer/0.1.0';
/** Topics whose queue gauges are exported even while empty (at 0). */
const QUEUE_TOPICS = [DELIVERY_TOPIC, AUTOMATION_STEP_TOPIC];

/**
 * Binds every port to its adapter, and provides every domain lib's settings, from the validated
 * config; both apps import it once.
 * Storage is one TypeORM adapter (SQLite or MySQL by config); the queue is chosen in
 * createWorkQueue; outbound HTTP is undici with the address guard.
 */
@Global()
@Module({})
export class InfrastructureModule implements OnApplicationShutdown {
  private readonly logger = new Logger('Infrastructure');

  constructor(
    private readonly db: TypeormDatabase,
    @Inject(WorkQueue) private readonly queue: ClosableWorkQueue,
    @Inject(OutboundHttp) private readonly http: UndiciOutboundHttp,
  ) {}

  static forRoot(config: AppConfig): DynamicModule {
    const settings = domainSettingsProviders(config);
    return {
      module: InfrastructureModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: Clock, useClass: SystemClock },
        ...settings,
        {
          provide: TypeormDatabase,
          useFactory: () => openDatabase(config.storage, (names) => new Logger('Database').log(migrationsAppliedLine(names))),
        },
        { provide: UnitOfWork, useFactory: (db: TypeormDatabase) => new TypeormUnitOfWork(db), inject: [TypeormDatabase] },
        {
          provide: SecretBox,
          useFactory: (db: TypeormDatabase, clock: Clock) => openSecretBox(db, config.secrets.keys, clock.nowMs()),
          inject: [TypeormDatabase, Clock],
        },
        ...typeormRepositoryProviders,
        {
          provide: WorkQueue,
          useFactory: (db: TypeormDatabase, clock: Clock) => createWorkQueue(config, db, clock),
          inject: [TypeormDatabase, Clock],
        },
        {
          provide: OutboundHttp,
          useFactory: () =>
            new UndiciOutboundHttp({
              timeoutMs: config.delivery.timeoutMs,
              allowPrivate: config.delivery.allowPrivateTargets,
              userAgent: USER_AGENT,
            }),
        },
        {
          // One Prometheus registry per app (API and dispatcher alike), with the storage gauges.
          provide: Metrics,
          useFactory: (clock: Clock, queue: WorkQueue, deliveries: DeliveryRepository, webhooks: WebhookRepository) => {
            const metrics = new Metrics();
            registerStorageGauges(metrics, clock, { queue, deliveries, webhooks, topics: QUEUE_TOPICS });
            return metrics;
          },
          inject: [Clock, WorkQueue, DeliveryRepository, WebhookRepository],
        },
        { provide: DeliveryObserver, useFactory: (metrics: Metrics) => new PrometheusDeliveryObserver(metrics), inject: [Metrics] },
        { provide: AutomationObserver, useFactory: (metrics: Metrics) => new PrometheusAutomationObserver(metrics), inject: [Metrics] },
        { provide: IdleHeapCompaction, useFactory: () => new IdleHeapCompaction() },
      ],
      exports: [APP_CONFIG, ...settings.map((p) => p.provide), Clock, Metrics, DeliveryObserver, AutomationObserver, TypeormDatabase, UnitOfWork, SecretBox, WorkQueue, OutboundHttp, ...typeormRepositoryProviders.map((p) => (p as { provide: unknown }).provide as never)],
    };
  }

  /** Runs after every module's own shutdown hooks (workers have stopped by then). */
  async onApplicationShutdown(): Promise<void> {
    await this.queue.close().catch((error: unknown) => this.logger.warn(`queue close: ${String(error)}`));
    await this.http.close().catch(() => undefined);
    await this.db.dataSource.destroy().catch(() => undefined);
  }
}
