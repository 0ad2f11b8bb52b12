import { Controller, Get, Header, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
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
  @ApiPropertyOptional({ enum: ['unavailable'], description: 'With a 503 alone: the error body every route answers (CONTRACT §1), beside the fields above' })
  code?: 'unavailable';
  @ApiPropertyOptional({ description: 'With a 503 alone: what does not answer, or that the process is stopping' })
  message?: string;
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
    const view: ReadinessView = { status, storage: storage ? 'up' : 'down', queue: queue ? 'up' : 'down' };
    if (status === 'ready') return void reply.status(200).send(view);
    void reply.status(503).send({ code: 'unavailable', message: notReady(storage, queue, status === 'stopping'), ...view });
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

function notReady(storage: boolean, queue: boolean, stopping: boolean): string {
  if (stopping) return 'the process is stopping: it takes no new work';
  const down = [storage ? null : 'storage', queue ? null : 'queue'].filter(Boolean).join(' and ');
  return `${down} ${storage || queue ? 'does' : 'do'} not answer`;
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
