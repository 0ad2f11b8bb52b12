import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { useAction } from '../api/use-action';
import { usePolling } from '../api/use-polling';
import { Delivery, DELIVERY_STATUSES, DeliveryStatus } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { Notice } from '../components/Notice';
import { DeliveryDetail } from './DeliveryDetail';
import { DeliveryTable } from './DeliveryTable';
import { RecoverForm } from './RecoverForm';

const PAGE_SIZE = 20;
const MAX_PAGE = 100;
/** How far back a link from the events page looks for the delivery of its event. */
const EVENT_SEARCH_PAGES = 10;

/**
 * A webhook's deliveries, newest first, as a dense table kept live, a page at a time (the API's
 * nextCursor), filtered by status; one delivery opens in a detail panel.
 */
export function DeliveryLog({ webhookId, version, eventId }: { webhookId: string; version: number; eventId?: string }) {
  const api = useApi();
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [selected, setSelected] = useState<Delivery | null>(null);
  const [notice, setNotice] = useState('');

  /** The first page again, as long as what is shown (up to 100): what live refresh and Refresh do. */
  const refresh = async () => {
    const limit = Math.min(MAX_PAGE, Math.max(PAGE_SIZE, deliveries?.length ?? 0));
    const page = await api.listDeliveries(webhookId, { status: status || undefined, limit });
    setDeliveries(page.deliveries);
    setNextCursor(page.nextCursor);
    setSelected((current) => (current ? (page.deliveries.find((d) => d.id === current.id) ?? current) : null));
  };
  const load = useAction(async (cursor?: string) => {
    if (!cursor) return refresh();
    const page = await api.listDeliveries(webhookId, { status: status || undefined, cursor, limit: PAGE_SIZE });
    setDeliveries((current) => [...(current ?? []), ...page.deliveries]);
    setNextCursor(page.nextCursor);
  });
  const retry = useAction(async (delivery: Delivery) => {
    await api.retryDelivery(webhookId, delivery.id);
    setNotice(`Retry of ${delivery.eventType} (${delivery.eventId}) queued: one more attempt now, same event id.`);
    await refresh();
  });
  const find = useAction(async (wanted: string) => {
    let cursor: string | undefined;
    for (let i = 0; i < EVENT_SEARCH_PAGES; i++) {
      const page = await api.listDeliveries(webhookId, { cursor, limit: MAX_PAGE });
      const found = page.deliveries.find((d) => d.eventId === wanted);
      if (found) return setSelected(found);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    setNotice(`This webhook has no delivery of event ${wanted} among its last ${EVENT_SEARCH_PAGES * MAX_PAGE} deliveries.`);
  });

  useEffect(() => {
    void load.run();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [webhookId, status, version]);
  useEffect(() => {
    if (eventId) void find.run(eventId);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [webhookId, eventId]);
  usePolling(refresh);

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
      <RecoverForm webhookId={webhookId} onRecovered={refresh} />
      <Notice>{notice}</Notice>
      <ErrorMessage error={retry.error} context="Retry failed" />
      <ErrorMessage error={load.error ?? find.error} context="The deliveries could not be loaded" />
      {selected ? <DeliveryDetail key={selected.id} delivery={selected} busy={retry.busy} onRetry={() => void retry.run(selected)} onClose={() => setSelected(null)} /> : null}
      {deliveries === null ? (
        load.busy ? (
          <p>Loading…</p>
        ) : null
      ) : deliveries.length === 0 ? (
        <p>No deliveries{status ? ` with status ${status}` : ''} yet.</p>
      ) : (
        <DeliveryTable deliveries={deliveries} selectedId={selected?.id} onSelect={setSelected} />
      )}
      {nextCursor ? (
        <button type="button" onClick={() => void load.run(nextCursor)} disabled={load.busy}>
          Load older deliveries
        </button>
      ) : null}
    </section>
  );
}
