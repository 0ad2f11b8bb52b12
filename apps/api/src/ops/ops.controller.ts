import { Controller, Get, Header, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { WorkQueue } from '../../../../libs/kernel/src';
import { MetricsAuth, NoCredential } from '../http/route-auth';
import { Metrics } from '../../../../libs/adapters/metrics/metrics';
import { TypeormDatabase } from '../../../../libs/adapters/sql/src/typeorm-database';
import { ShutdownState } from './shutdown-state';

const PROBE_TIMEOUT_MS = 2000;

export class HealthView {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
}

export class ReadinessView {
  @ApiProperty({ enum: ['ready', 'unavailable', 'stopping'], description: '`stopping` once the process began to shut down (SIGTERM): it serves what it gets, but takes nothing new from a balancer' })
  status!: string;
  @ApiProperty({ enum: ['up', 'down'] }) storage!: string;
  @ApiProperty({ enum: ['up', 'down'] }) queue!: string;
}

@ApiTags('operations')
@Controller()
@NoCredential()
export class OpsController {
  constructor(
    private readonly db: TypeormDatabase,
    @Inject(WorkQueue) private readonly queue: WorkQueue,
    private readonly metrics: Metrics,
    private readonly shutdown: ShutdownState,
  ) {}

  @Get('health')
  @HttpCode(200)
  @ApiOperation({ operationId: 'ops_health', summary: 'Liveness: 200 while the process lives' })
  @ApiOkResponse({ type: HealthView })
  health(): HealthView {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ operationId: 'ops_ready', summary: 'Readiness: 200 only while storage and queue answer and the process is not stopping' })
  @ApiOkResponse({ type: ReadinessView, description: 'Storage and queue answer' })
  @ApiServiceUnavailableResponse({ type: ReadinessView, description: 'Storage or queue does not answer, or the process is stopping' })
  async ready(@Res() reply: FastifyReply) {
    const [storage, queue] = await Promise.all([probe(() => this.db.ping()), probe(() => this.queue.ping())]);
    const status = this.shutdown.stopping ? 'stopping' : storage && queue ? 'ready' : 'unavailable';
    void reply.status(status === 'ready' ? 200 : 503).send({ status, storage: storage ? 'up' : 'down', queue: queue ? 'up' : 'down' });
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOperation({ operationId: 'ops_metrics', summary: 'Prometheus metrics in the text exposition format (Bearer METRICS_TOKEN when it is set)' })
  // The 200 alone is text (a produces decorator would make the JSON 401 text/plain too).
  @ApiOkResponse({ content: { 'text/plain': { schema: { type: 'string' } } }, description: 'Prometheus text exposition format 0.0.4' })
  @MetricsAuth()
  metricsText(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}

async function probe(check: () => Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([check(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), PROBE_TIMEOUT_MS)))]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
