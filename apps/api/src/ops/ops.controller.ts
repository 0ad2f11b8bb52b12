import { Controller, Get, Header, HttpCode, Inject, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { WorkQueue } from '../../../../libs/kernel/src';
import { Metrics } from '../../../../libs/adapters/metrics/metrics';
import { TypeormDatabase } from '../../../../libs/adapters/typeorm/src/typeorm-database';
import { MetricsTokenGuard } from '../http/guards';

const PROBE_TIMEOUT_MS = 2000;

@ApiTags('operations')
@Controller()
export class OpsController {
  constructor(
    private readonly db: TypeormDatabase,
    @Inject(WorkQueue) private readonly queue: WorkQueue,
    private readonly metrics: Metrics,
  ) {}

  @Get('health')
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: 200 while the process lives' })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  health() {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: 200 only while storage and queue answer' })
  @ApiOkResponse({ schema: { example: { status: 'ready', storage: 'up', queue: 'up' } } })
  @ApiServiceUnavailableResponse({ schema: { example: { status: 'unavailable', storage: 'down', queue: 'up' } } })
  async ready(@Res() reply: FastifyReply) {
    const [storage, queue] = await Promise.all([probe(() => this.db.ping()), probe(() => this.queue.ping())]);
    const ok = storage && queue;
    void reply.status(ok ? 200 : 503).send({ status: ok ? 'ready' : 'unavailable', storage: storage ? 'up' : 'down', queue: queue ? 'up' : 'down' });
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  @UseGuards(MetricsTokenGuard)
  @ApiBearerAuth('metrics')
  @ApiOperation({ summary: 'Prometheus metrics in the text exposition format (Bearer METRICS_TOKEN when it is set)' })
  @ApiProduces('text/plain')
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
