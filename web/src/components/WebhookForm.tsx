import { useState } from 'preact/hooks';
import { EVENT_WORDS, EVERY_EVENT, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../webhooks.js';

/** A lock the owner may point a webhook at: one they own or administer. */
export interface ManagedLock {
  id: string;
  name: string;
}

/** What `POST /webhooks` takes. */
export interface WebhookFields {
  url: string;
  events: string[];
  lock_ids?: string[];
}

/**
 * Add a webhook (docs/design.md §11): its URL, the event types as checkboxes (or every event, also
 * ones added later), and which of the owner's locks (or all, also ones added later). `onSubmit`
 * answers whether it worked; a refusal is said under the button, a success clears the form.
 */
export function WebhookForm({ locks, onSubmit }: { locks: readonly ManagedLock[]; onSubmit: (fields: WebhookFields) => Promise<string | undefined> }) {
  const [url, setUrl] = useState('');
  const [every, setEvery] = useState(false);
  const [events, setEvents] = useState<WebhookEventType[]>([]);
  const [allLocks, setAllLocks] = useState(true);
  const [lockIds, setLockIds] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const toggle = <T,>(list: readonly T[], item: T, on: boolean): T[] => (on ? [...list.filter((entry) => entry !== item), item] : list.filter((entry) => entry !== item));

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (busy) return;
    if (!every && events.length === 0) {
      setError('Choose at least one event.');
      return;
    }
    if (!allLocks && lockIds.length === 0) {
      setError('Choose at least one lock, or all of them.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const failure = await onSubmit({
        url: url.trim(),
        events: every ? [EVERY_EVENT] : WEBHOOK_EVENT_TYPES.filter((type) => events.includes(type)),
        ...(allLocks ? {} : { lock_ids: lockIds }),
      });
      if (failure === undefined) {
        setUrl('');
        setEvery(false);
        setEvents([]);
        setAllLocks(true);
        setLockIds([]);
      } else setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="webhook-form" onSubmit={(event) => void submit(event)}>
      <label for="webhook-url">URL</label>
      <input
        id="webhook-url"
        type="url"
        inputMode="url"
        autocomplete="off"
        required
        maxLength={2048}
        placeholder="https://example.com/hooks/locks"
        aria-describedby="webhook-url-hint"
        value={url}
        onInput={(event) => { setUrl(event.currentTarget.value); }}
      />
      <p class="hint field-hint" id="webhook-url-hint">
        Where the service sends each event. It may be on your home network.
      </p>
      <fieldset class="choices">
        <legend>Events</legend>
        <label class="check" for="webhook-every-event">
          <input id="webhook-every-event" type="checkbox" checked={every} onChange={(event) => { setEvery(event.currentTarget.checked); }} />
          Every event, also ones added later
        </label>
        {!every && (
          <div class="choice-grid">
            {WEBHOOK_EVENT_TYPES.map((type) => (
              <label key={type} class="check" for={`webhook-event-${type}`}>
                <input
                  id={`webhook-event-${type}`}
                  type="checkbox"
                  checked={events.includes(type)}
                  onChange={(event) => { setEvents(toggle(events, type, event.currentTarget.checked)); }}
                />
                <span>
                  {EVENT_WORDS[type]} <code class="muted">{type}</code>
                </span>
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <fieldset class="choices">
        <legend>Locks</legend>
        <label class="check" for="webhook-all-locks">
          <input id="webhook-all-locks" type="checkbox" checked={allLocks} onChange={(event) => { setAllLocks(event.currentTarget.checked); }} />
          All my locks, also ones added later
        </label>
        {!allLocks && (
          <div class="choice-grid">
            {locks.map((lock) => (
              <label key={lock.id} class="check" for={`webhook-lock-${lock.id}`}>
                <input
                  id={`webhook-lock-${lock.id}`}
                  type="checkbox"
                  checked={lockIds.includes(lock.id)}
                  onChange={(event) => { setLockIds(toggle(lockIds, lock.id, event.currentTarget.checked)); }}
                />
                {lock.name}
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <div class="actions">
        <button type="submit" class="primary" aria-disabled={busy ? 'true' : undefined}>
          Add webhook
        </button>
      </div>
      <p class="error" role="alert">
        {error ?? ''}
      </p>
    </form>
  );
}
