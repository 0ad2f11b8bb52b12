import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { useAction } from '../api/use-action';
import { useLiveList } from '../api/use-live-list';
import { Delivery, DELIVERY_STATUSES, DeliveryStatus } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { Notice } from '../components/Notice';
import { DeliveryDetail } from './DeliveryDetail';
import { DeliveryTable } from './DeliveryTable';
import { RecoverForm } from './RecoverForm';

/**
 * A webhook's deliveries, newest first, as a dense table kept live, a page at a time (the API's
 * nextCursor), filtered by status; one delivery opens in a detail panel.
 */
export function DeliveryLog({
  webhookId,
  family,
  enabled,
  version,
  eventId,
}: {
  webhookId: string;
  family: 'v3' | 'v2';
  /** Retry and recover are refused on a disabled webhook (400): they are offered only while it is enabled. */
  enabled: boolean;
  version: number;
  eventId?: string;
}) {
  const api = useApi();
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [selected, setSelected] = useState<Delivery | null>(null);
  const [notice, setNotice] = useState('');
  const list = useLiveList(
    (page) => api.listDeliveries(webhookId, { status: status || undefined, ...page }).then((p) => ({ items: p.deliveries, nextCursor: p.nextCursor })),
    [api, webhookId, status, version],
  );
  const deliveries = list.items;
  useEffect(() => {
    setSelected((current) => (current ? (deliveries?.find((d) => d.id === current.id) ?? current) : null));
  }, [deliveries]);

  const retry = useAction(async (delivery: Delivery) => {
    await api.retryDelivery(webhookId, delivery.id);
    setNotice(`${delivery.status === 'succeeded' ? 'Resend' : 'Retry'} of ${delivery.eventType} (${delivery.eventId}) queued: one more attempt now, same event id.`);
    await list.refresh();
  });
  const find = useAction(async (wanted: string) => {
    const found = (await api.eventDeliveries(wanted)).deliveries.find((d) => d.webhookId === webhookId);
    if (found) return setSelected(found);
    setNotice(`This webhook has no delivery of event ${wanted}.`);
  });
  useEffect(() => {
    if (eventId) void find.run(eventId);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [webhookId, eventId]);

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
          <button type="button" onClick={() => void list.reload()} disabled={list.busy}>
            Refresh
          </button>
        </div>
      </div>
      {enabled ? (
        <RecoverForm
          webhookId={webhookId}
          onRecovered={() => {
            retry.clearError();
            return list.refresh();
          }}
        />
      ) : (
        <p class="hint">The webhook is disabled: enable it to recover or retry its deliveries.</p>
      )}
      <Notice>{notice}</Notice>
      <ErrorMessage error={retry.error} context="Retry failed" />
      <ErrorMessage error={list.error ?? find.error} context="The deliveries could not be loaded" />
      {selected ? <DeliveryDetail key={selected.id} delivery={selected} family={family} enabled={enabled} busy={retry.busy} onRetry={() => void retry.run(selected)} onClose={() => setSelected(null)} /> : null}
      {deliveries === null ? (
        list.busy ? (
          <p>Loading…</p>
        ) : null
      ) : deliveries.length === 0 ? (
        <p>No deliveries{status ? ` with status ${status}` : ''} yet.</p>
      ) : (
        <DeliveryTable deliveries={deliveries} selectedId={selected?.id} onSelect={setSelected} />
      )}
      {list.nextCursor ? (
        <button type="button" onClick={() => void list.loadOlder()} disabled={list.busy}>
          Load older deliveries
        </button>
      ) : null}
    </section>
  );
}
