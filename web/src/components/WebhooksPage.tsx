import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, get } from '../api.js';
import { errorText } from '../hooks.js';
import { eventsText, type CreatedWebhook, type Webhook } from '../webhooks.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { WebhookDeliveries } from './WebhookDeliveries.js';
import { WebhookForm, type ManagedLock, type WebhookFields } from './WebhookForm.js';
import { WebhookSecret } from './WebhookSecret.js';

/** Why a webhook is switched off, in words (the service says it in its own). */
function disabledText(reason: string | null): string {
  if (reason !== null && /\b410\b/.test(reason)) return 'Switched off: the receiver said it wants no more deliveries. Retry a delivery to switch it on again.';
  return `Switched off${reason === null ? '' : `: ${reason}`}. Retry a delivery to switch it on again.`;
}

function WebhookRow({ webhook, locks, zoneOf, open, onToggle, onAskDelete, onRetried }: {
  webhook: Webhook;
  locks: readonly ManagedLock[];
  zoneOf: (lockId: string | undefined) => string;
  open: boolean;
  onToggle: () => void;
  onAskDelete: () => void;
  onRetried: () => Promise<void>;
}) {
  const lockNames =
    webhook.lock_ids === null
      ? 'All your locks, also ones added later'
      : webhook.lock_ids.map((id) => locks.find((lock) => lock.id === id)?.name ?? 'a lock you no longer manage').join(', ');
  const disabled = webhook.state === 'disabled';
  return (
    <li class={`webhook webhook-is-${webhook.state}`}>
      <div class="key-head">
        <strong class="url">{webhook.url}</strong>
        <span class={`badge badge-webhook-${webhook.state}`}>{disabled ? 'Switched off' : 'Active'}</span>
      </div>
      {disabled && <p class="webhook-off-reason">{disabledText(webhook.disabled_reason)}</p>}
      <dl class="webhook-facts">
        <dt>Events</dt>
        <dd>{eventsText(webhook.events)}</dd>
        <dt>Locks</dt>
        <dd>{lockNames}</dd>
      </dl>
      {webhook.dropped_deliveries > 0 && (
        <p class="hint">
          {webhook.dropped_deliveries === 1 ? '1 delivery was' : `${webhook.dropped_deliveries} deliveries were`} dropped: 1,000 were already waiting for the receiver.
        </p>
      )}
      <div class="actions">
        <button type="button" aria-expanded={open} aria-label={`Deliveries of ${webhook.url}`} onClick={onToggle}>
          Deliveries
        </button>
        <button type="button" class="danger" aria-label={`Delete webhook ${webhook.url}`} onClick={onAskDelete}>
          Delete
        </button>
      </div>
      {open && <WebhookDeliveries webhook={webhook} zoneOf={zoneOf} onRetried={onRetried} />}
    </li>
  );
}

/**
 * The owner's webhooks (docs/design.md §11, docs/webhooks.md): add one (its secret shown once),
 * the list with each one's events, locks and state, its delivery log with Retry, and delete after
 * confirming. Shown only to users who own a lock (App.tsx).
 */
export function WebhooksPage({ locks, zoneOf }: {
  /** The locks the user owns or administers (a webhook may name any of them). */
  locks: readonly ManagedLock[];
  zoneOf: (lockId: string | undefined) => string;
}) {
  const [webhooks, setWebhooks] = useState<Webhook[]>();
  const [created, setCreated] = useState<CreatedWebhook>();
  const [openId, setOpenId] = useState<string>();
  const [asking, setAsking] = useState<Webhook>();
  const [status, setStatus] = useState<{ text: string; ok: boolean }>();
  const statusRef = useRef<HTMLDivElement>(null);

  const load = useCallback(async (): Promise<void> => {
    try {
      setWebhooks(await get<Webhook[]>('/webhooks'));
    } catch (error) {
      setStatus({ text: errorText(error), ok: false });
    }
  }, []);
  useEffect(() => {
    void load();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void load();
    }, 5000);
    return () => {
      clearInterval(timer);
    };
  }, [load]);

  const say = (text: string, ok: boolean): void => {
    setStatus({ text, ok });
    requestAnimationFrame(() => {
      statusRef.current?.focus();
    });
  };

  const add = async (fields: WebhookFields): Promise<string | undefined> => {
    try {
      const webhook = await api<CreatedWebhook>('POST', '/webhooks', fields);
      setStatus(undefined);
      setCreated(webhook);
      await load();
      return undefined;
    } catch (error) {
      return errorText(error);
    }
  };

  const remove = async (webhook: Webhook): Promise<void> => {
    try {
      await api('DELETE', `/webhooks/${webhook.id}`);
    } catch (error) {
      say(errorText(error), false);
      return;
    }
    if (openId === webhook.id) setOpenId(undefined);
    if (created?.id === webhook.id) setCreated(undefined);
    await load();
    say(`Deleted the webhook to ${webhook.url}: nothing more is sent there.`, true);
  };

  return (
    <>
      <p>
        <a href="#/">← All locks</a>
      </p>
      <h1 tabIndex={-1}>Webhooks</h1>
      <p>
        A webhook sends each event at your locks — a door unlocked, a door code set, a low battery — to an address of yours, signed so that its receiver
        can check it came from here. See the Webhooks guide in the plugin’s documentation for what is sent.
      </p>
      {created !== undefined && (
        <WebhookSecret
          key={created.id}
          url={created.url}
          secret={created.secret}
          onDone={() => {
            setCreated(undefined);
            requestAnimationFrame(() => {
              document.querySelector<HTMLElement>('main h1')?.focus();
            });
          }}
        />
      )}
      <section aria-labelledby="add-webhook-heading" class="card">
        <h2 id="add-webhook-heading">Add a webhook</h2>
        <WebhookForm locks={locks} onSubmit={add} />
      </section>
      <div ref={statusRef} tabIndex={-1} class="page-outcome">
        <p class="form-outcome" role="status">
          {status?.ok === true ? status.text : ''}
        </p>
        <p class="error" role="alert">
          {status?.ok === false ? status.text : ''}
        </p>
      </div>
      <section aria-labelledby="webhooks-heading" class="card">
        <h2 id="webhooks-heading">Your webhooks</h2>
        {webhooks === undefined ? (
          <p role="status">Loading…</p>
        ) : webhooks.length === 0 ? (
          <p class="muted">None yet: add one above to have your locks’ events sent to an address of yours.</p>
        ) : (
          <ul class="keys">
            {webhooks.map((webhook) => (
              <WebhookRow
                key={webhook.id}
                webhook={webhook}
                locks={locks}
                zoneOf={zoneOf}
                open={openId === webhook.id}
                onToggle={() => { setOpenId(openId === webhook.id ? undefined : webhook.id); }}
                onAskDelete={() => { setAsking(webhook); }}
                onRetried={load}
              />
            ))}
          </ul>
        )}
      </section>
      {asking !== undefined && (
        <ConfirmDialog
          key={asking.id}
          title={`Delete the webhook to ${asking.url}?`}
          text='Nothing more is sent there, waiting deliveries are dropped, and its delivery log goes with it. This cannot be undone.'
          action="Delete"
          onClose={(confirmed) => {
            setAsking(undefined);
            if (confirmed) void remove(asking);
          }}
        />
      )}
    </>
  );
}
