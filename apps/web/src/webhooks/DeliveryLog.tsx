import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { useAction } from '../api/use-action';
import { Delivery, DELIVERY_STATUSES, DeliveryStatus } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { Notice } from '../components/Notice';
import { DeliveryItem } from './DeliveryItem';
import { RecoverForm } from './RecoverForm';

const PAGE_SIZE = 20;

/** A webhook's deliveries, newest first, a page at a time (the API's nextCursor), filtered by status. */
export function DeliveryLog({ webhookId, version }: { webhookId: string; version: number }) {
  const api = useApi();
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [notice, setNotice] = useState('');

  const load = useAction(async (cursor?: string) => {
    const page = await api.listDeliveries(webhookId, { status: status || undefined, cursor, limit: PAGE_SIZE });
    setDeliveries((current) => (cursor && current ? [...current, ...page.deliveries] : page.deliveries));
    setNextCursor(page.nextCursor);
  });
  const retry = useAction(async (delivery: Delivery) => {
    await api.retryDelivery(webhookId, delivery.id);
    setNotice(`Retry of ${delivery.eventType} (${delivery.eventId}) queued: one more attempt now, same event id.`);
    await load.run();
  });

  useEffect(() => {
    void load.run();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [webhookId, status, version]);

  return (
    <section class="delivery-log" aria-labelledby="delivery-log-title">
      <div class="page-head">
        <h2 id="delivery-log-title">Delivery log</h2>
        <div class="actions">
          <label for="delivery-status">Status</label>
          <select id="delivery-status" value={status} onChange={(e) => setStatus(e.currentTarget.value as DeliveryStatus | '')}>
            <option value="">All</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
          <button type="button" onClick={() => void load.run()} disabled={load.busy}>
            Refresh
          </button>
        </div>
      </div>
      <RecoverForm webhookId={webhookId} onRecovered={() => load.run()} />
      <Notice>{notice}</Notice>
      <ErrorMessage error={retry.error} context="Retry failed" />
      <ErrorMessage error={load.error} context="The deliveries could not be loaded" />
      {deliveries === null ? (
        load.busy ? (
          <p>Loading…</p>
        ) : null
      ) : deliveries.length === 0 ? (
        <p>No deliveries{status ? ` with status ${status}` : ''} yet.</p>
      ) : (
        <ol class="deliveries" aria-label="Deliveries, newest first">
          {deliveries.map((delivery) => (
            <DeliveryItem key={delivery.id} delivery={delivery} busy={retry.busy} onRetry={() => void retry.run(delivery)} />
          ))}
        </ol>
      )}
      {nextCursor ? (
        <button type="button" onClick={() => void load.run(nextCursor)} disabled={load.busy}>
          Load older deliveries
        </button>
      ) : null}
    </section>
  );
}
