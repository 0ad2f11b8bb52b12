import { STATS_POLL_INTERVAL_MS, usePolling } from '../api/use-polling';
import { HourlyChart } from './HourlyChart';
import { latencyText, NO_FIGURE, successRateText } from './stats-format';
import { useWebhookStats } from './use-stats';

/** The last 24 hours of a webhook: success rate, latency, counts, and attempts per hour. */
export function WebhookHealth({ webhookId, version }: { webhookId: string; version: string }) {
  const stats = useWebhookStats(webhookId, version);
  usePolling(stats.reload, STATS_POLL_INTERVAL_MS);
  const s = stats.data;
  return (
    <section class="card health" aria-labelledby="health-title">
      <h2 id="health-title">Last 24 hours</h2>
      <dl class="facts">
        <div>
          <dt>Success rate</dt>
          <dd class="figure">{successRateText(s)}</dd>
        </div>
        <div>
          <dt>Latency p50 / p95</dt>
          <dd class="figure">
            {latencyText(s?.latencyMs?.p50)} / {latencyText(s?.latencyMs?.p95)}
          </dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>{s ? `${s.attempts.total} (${s.attempts.succeeded} succeeded, ${s.attempts.failed} failed)` : NO_FIGURE}</dd>
        </div>
        <div>
          <dt>Deliveries</dt>
          <dd>
            {s
              ? Object.entries(s.deliveries)
                  .filter(([, n]) => n > 0)
                  .map(([status, n]) => `${n} ${status}`)
                  .join(', ') || 'none'
              : NO_FIGURE}
          </dd>
        </div>
      </dl>
      {s ? <HourlyChart buckets={s.buckets} /> : stats.error ? <p class="hint">Figures unavailable: the stats route did not answer.</p> : null}
    </section>
  );
}
