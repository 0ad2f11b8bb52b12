import { DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import type { AppConfig } from '../../../config/load-config';
import { InfrastructureModule } from '../../../libs/adapters/infrastructure.module';
import { MetricsServer } from '../../../libs/adapters/metrics/metrics-server';
import { DispatchModule } from '../../../libs/dispatch/src';

/** The dispatcher app on its own: infrastructure, the workers, the schedules, and /metrics and /health on DISPATCHER_HEALTH_PORT when set. */
@Module({})
export class DispatcherAppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: DispatcherAppModule,
      imports: [InfrastructureModule.forRoot(config), ScheduleModule.forRoot(), DispatchModule],
      providers: [MetricsServer],
    };
  }
}
