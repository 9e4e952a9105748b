import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, get } from '../api.js';
import { errorText } from '../hooks.js';
import { whenText } from '../time.js';
import { canRetry, deliveryLock, deliveryStatusText, deliveryStatusWords, eventWords, type Webhook, type WebhookDelivery } from '../webhooks.js';

/** How many deliveries the log shows (newest first). */
const SHOWN = 50;
/** How often an open log is read again while the page is visible. */
const EVERY_MS = 3000;

/**
 * A webhook's delivery log, newest first: when, which event of which lock, its state, the
 * attempts and what went wrong; `Retry` on a failed one (or one waiting after a failed attempt)
 * sends it again now, with the same id. Read again every 3 s while open.
 */
export function WebhookDeliveries({ webhook, zoneOf, onRetried }: {
  webhook: Webhook;
  /** The time zone of a lock (a delivery's times are in its lock's zone). */
  zoneOf: (lockId: string | undefined) => string;
  /** A retry may switch a disabled webhook on again: the page reads the webhooks again. */
  onRetried: () => Promise<void>;
}) {
  const [deliveries, setDeliveries] = useState<WebhookDelivery[]>();
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string }>();
  const [busy, setBusy] = useState<string>();
  const headingId = `deliveries-${webhook.id}`;
  const alive = useRef(true);
  const list = useRef<HTMLUListElement>(null);
  // The delivery last retried: once delivered, its Retry button goes; focus then moves to its row, not to the page's start.
  const retried = useRef<string>();
  useEffect(() => {
    const id = retried.current;
    if (id === undefined || deliveries?.some((delivery) => delivery.id === id && canRetry(delivery)) !== false) return;
    retried.current = undefined;
    if (document.activeElement === document.body || document.activeElement === null) {
      list.current?.querySelector<HTMLElement>(`[data-delivery="${CSS.escape(id)}"]`)?.focus();
    }
  }, [deliveries]);

  const load = useCallback(async (): Promise<void> => {
    try {
      const read = await get<WebhookDelivery[]>(`/webhooks/${webhook.id}/deliveries?limit=${SHOWN}`);
      if (alive.current) setDeliveries(read);
    } catch (error) {
      if (alive.current) setOutcome({ ok: false, text: errorText(error) });
    }
  }, [webhook.id]);

  useEffect(() => {
    alive.current = true;
    void load();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void load();
    }, EVERY_MS);
    return () => {
      alive.current = false;
      clearInterval(timer);
    };
  }, [load]);

  const retry = async (delivery: WebhookDelivery, what: string): Promise<void> => {
    if (busy !== undefined) return;
    setBusy(delivery.id);
    setOutcome(undefined);
    retried.current = delivery.id;
    try {
      await api<WebhookDelivery>('POST', `/webhooks/${webhook.id}/deliveries/${encodeURIComponent(delivery.id)}/retry`);
      await Promise.all([load(), onRetried()]);
      setOutcome({ ok: true, text: `${what}: sent again now.` });
    } catch (error) {
      setOutcome({ ok: false, text: errorText(error) });
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <section class="deliveries" aria-labelledby={headingId}>
      <h3 id={headingId}>Deliveries to {webhook.url}</h3>
      <p class="form-outcome" role="status">
        {outcome?.ok === true ? outcome.text : ''}
      </p>
      <p class="error" role="alert">
        {outcome?.ok === false ? outcome.text : ''}
      </p>
      {deliveries === undefined ? (
        <p role="status">Loading…</p>
      ) : deliveries.length === 0 ? (
        <p class="muted">Nothing sent yet: a delivery appears here when one of its events happens at your locks.</p>
      ) : (
        <ul class="delivery-list" ref={list}>
          {deliveries.map((delivery) => {
            const lock = deliveryLock(delivery);
            const zone = zoneOf(lock?.id);
            const when = whenText(delivery.created_at, zone);
            const what = `${eventWords(delivery.event_type)}${lock === undefined ? '' : ` at ${lock.name}`}`;
            return (
              <li key={delivery.id} class={`delivery delivery-${delivery.status}`} data-delivery={delivery.id} tabIndex={-1}>
                <div class="key-head">
                  <strong>{what}</strong>
                  <span class={`badge badge-delivery-${delivery.status}`}>{deliveryStatusWords(delivery)}</span>
                </div>
                <div class="muted">
                  <time dateTime={delivery.created_at}>{when}</time> · <code>{delivery.event_type}</code>
                </div>
                <p class="delivery-state">{deliveryStatusText(delivery, zone)}</p>
                <p class="hint">Delivery id {delivery.id}</p>
                {canRetry(delivery) && (
                  <div class="actions">
                    <button
                      type="button"
                      aria-label={`Retry ${what}, ${when}`}
                      aria-disabled={busy !== undefined ? 'true' : undefined}
                      onClick={() => void retry(delivery, `${what}, ${when}`)}
                    >
                      Retry
                    </button>
                  </div>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
