import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, get, type Booking, type Calendar } from '../api.js';
import { BOOKING_STATE_WORDS, stayCodeText } from '../booking-text.js';
import { errorText } from '../hooks.js';
import { guestMessage, stayDatesText, whenText } from '../time.js';
import { ConfirmDialog } from './ConfirmDialog.js';

/**
 * Copies text where the browser allows it: false where it does not (a plain-HTTP address of the
 * home network has no clipboard), and the page then says to copy the message shown above the button.
 */
async function copyText(text: string): Promise<boolean> {
  if (!window.isSecureContext || !('clipboard' in navigator)) return false;
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** The site a calendar comes from (its link's host: the rest of the link is a secret). */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'its link';
  }
}

/** One stay: its dates, its state, this lock's code and where it stands, and the guest's message. */
function Stay({ booking, lockId, lockName, zone }: { booking: Booking; lockId: string; lockName: string; zone: string }) {
  const [copied, setCopied] = useState<string>();
  const code = booking.door_codes.find((entry) => entry.lock_id === lockId);
  const headingId = `stay-${booking.uid.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const message = code?.code == null ? undefined : guestMessage(lockName, code.code, booking.starts_at, booking.ends_at, zone);
  return (
    <li class={`stay stay-${booking.state}`}>
      <article aria-labelledby={headingId}>
        <h3 id={headingId}>{stayDatesText(booking.starts_at, booking.ends_at, zone)}</h3>
        <p class="stay-head">
          <span class={`badge badge-stay-${booking.state}`}>{BOOKING_STATE_WORDS[booking.state]}</span> <span class="muted">{booking.summary === '' ? 'No title' : booking.summary}</span>
        </p>
        {code !== undefined && (
          <div class={`door-code door-code-${code.state}`} role="group" aria-labelledby={code.code === null ? `${headingId}-label` : `${headingId}-label ${headingId}-digits`}>
            <p>
              <span id={`${headingId}-label`}>Door code</span>{' '}
              {code.code !== null && (
                <strong id={`${headingId}-digits`} class="code">
                  {code.code}
                </strong>
              )}
            </p>
            <p class={code.state === 'failed' ? 'hint door-code-failed' : 'hint'}>{stayCodeText(code, zone)}</p>
          </div>
        )}
        {message !== undefined && code?.state !== 'failed' && (booking.state === 'upcoming' || booking.state === 'active') && (
          <>
            <p class="guest-message">{message}</p>
            <div class="actions">
              <button
                type="button"
                onClick={() => {
                  void copyText(message).then((ok) => {
                    setCopied(ok ? 'Copied: paste it into your message to the guest.' : 'Your browser does not allow copying here: select the message above and copy it.');
                  });
                }}
              >
                Copy message for the guest
              </button>
            </div>
            <p class="form-outcome" role="status">
              {copied}
            </p>
          </>
        )}
      </article>
    </li>
  );
}

/** Paste the link and set the times: a new calendar, or the times of one. */
function CalendarForm({ lockId, keypad, calendar, onSaved }: {
  lockId: string;
  keypad: boolean;
  calendar: Calendar | undefined;
  /** After a save; a new calendar's outcome is said by the page (this form gives way to the calendar). */
  onSaved: (created?: string) => Promise<void>;
}) {
  const [url, setUrl] = useState('');
  const [checkIn, setCheckIn] = useState(calendar?.check_in ?? '16:00');
  const [checkOut, setCheckOut] = useState(calendar?.check_out ?? '11:00');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string }>();
  const prefix = calendar === undefined ? 'new-calendar' : `calendar-${calendar.id}`;
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setOutcome(undefined);
    try {
      if (calendar === undefined) {
        const created = await api<Calendar>('POST', '/calendars', { url, lock_ids: [lockId], check_in: checkIn, check_out: checkOut, door_code: keypad });
        setUrl('');
        await onSaved(created.state === 'ok' ? `Calendar connected: ${String(created.bookings.length)} stays found.` : 'Calendar connected, but it could not be read yet: see below.');
        return;
      }
      await api<Calendar>('PUT', `/calendars/${calendar.id}`, { check_in: checkIn, check_out: checkOut });
      setOutcome({ ok: true, text: 'Times saved: the stays\u2019 codes follow them.' });
      await onSaved();
    } catch (error) {
      setOutcome({ ok: false, text: errorText(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card calendar-form" onSubmit={(event) => void submit(event)}>
      {calendar === undefined && (
        <>
          <label for={`${prefix}-url`}>Calendar link</label>
          <input id={`${prefix}-url`} type="url" required inputMode="url" placeholder="https://…/calendar.ics" value={url} onInput={(event) => { setUrl(event.currentTarget.value); }} />
          <p class="hint field-hint">The iCal export link of your listing (Airbnb, Vrbo, Booking.com or any calendar).</p>
        </>
      )}
      <div class="times">
        <div class="time">
          <label for={`${prefix}-check-in`}>Check-in</label>
          <input id={`${prefix}-check-in`} type="time" required value={checkIn} onInput={(event) => { setCheckIn(event.currentTarget.value); }} />
        </div>
        <div class="time">
          <label for={`${prefix}-check-out`}>Check-out</label>
          <input id={`${prefix}-check-out`} type="time" required value={checkOut} onInput={(event) => { setCheckOut(event.currentTarget.value); }} />
        </div>
      </div>
      <div class="actions">
        <button type="submit" class="primary" aria-disabled={busy ? 'true' : undefined}>
          {calendar === undefined ? 'Connect calendar' : 'Save times'}
        </button>
      </div>
      <p class={outcome?.ok === false ? 'error' : 'form-outcome'} role={outcome?.ok === false ? 'alert' : 'status'}>
        {outcome?.text}
      </p>
    </form>
  );
}

/**
 * A lock's rental calendars for its owners (docs/design.md §12): paste the calendar link, set
 * check-in and check-out times, see each stay with its dates, its code and where the code stands,
 * and copy a message for the guest. Times 24-hour on the lock's clock, with its zone.
 */
export function BookingsPage({ lockId, lockName, zone, keypad }: { lockId: string; lockName: string; zone: string; keypad: boolean }) {
  const [calendars, setCalendars] = useState<Calendar[]>();
  const [failure, setFailure] = useState<string>();
  const [refreshing, setRefreshing] = useState(false);
  const [asking, setAsking] = useState<Calendar>();
  const [said, setSaid] = useState<string>();
  const saidRef = useRef<HTMLParagraphElement>(null);
  const load = useCallback(async () => {
    try {
      const all = await get<{ calendars: Calendar[] }>('/calendars');
      setCalendars(all.calendars.filter((calendar) => calendar.lock_ids.includes(lockId)));
      setFailure(undefined);
    } catch (error) {
      setFailure(errorText(error));
    }
  }, [lockId]);
  useEffect(() => {
    void load();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void load();
    }, 5000);
    return () => {
      clearInterval(timer);
    };
  }, [load]);

  const refresh = async (calendar: Calendar): Promise<void> => {
    if (refreshing) return;
    setRefreshing(true);
    try {
      await api<Calendar>('POST', `/calendars/${calendar.id}/refresh`);
      await load();
    } catch (error) {
      setFailure(errorText(error));
    } finally {
      setRefreshing(false);
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>Bookings of {lockName}</h1>
      <p class="hint">
        Each stay in your rental calendar gets its own door code on {lockName}, working from check-in to check-out; a cancelled stay&rsquo;s code is taken off. Times are on the lock&rsquo;s clock ({zone}).
      </p>
      {!keypad && <p class="hint">{lockName} has no keypad: the stays are shown, but they get no door codes.</p>}
      <p class="error" role="alert">
        {failure}
      </p>
      <p class="form-outcome page-outcome" role="status" ref={saidRef} tabIndex={-1}>
        {said}
      </p>
      {calendars === undefined ? (
        <p role="status">Loading…</p>
      ) : calendars.length === 0 ? (
        <>
          <h2>Connect a calendar</h2>
          <CalendarForm
            lockId={lockId}
            keypad={keypad}
            calendar={undefined}
            onSaved={async (created) => {
              await load();
              if (created !== undefined) {
                setSaid(created);
                saidRef.current?.focus();
              }
            }}
          />
        </>
      ) : (
        calendars.map((calendar) => (
          <section key={calendar.id} class="calendar" aria-labelledby={`calendar-${calendar.id}`}>
            <h2 id={`calendar-${calendar.id}`}>Calendar from {hostOf(calendar.url)}</h2>
            {calendar.state === 'failing' ? (
              <p class="error" role="alert">
                The calendar could not be read{calendar.last_refresh_at === null ? '' : ` on ${whenText(calendar.last_refresh_at, zone)}`}: {calendar.last_error ?? 'no reason was given'} Nothing was changed.
              </p>
            ) : (
              <p class="hint calendar-state">
                {calendar.last_refresh_at === null ? 'Not read yet.' : `Read on ${whenText(calendar.last_refresh_at, zone)}; it is read again every 10 minutes.`}
              </p>
            )}
            <div class="actions">
              <button type="button" aria-disabled={refreshing ? 'true' : undefined} onClick={() => void refresh(calendar)}>
                {refreshing ? 'Reading the calendar…' : 'Read the calendar now'}
              </button>
              <button type="button" class="danger" onClick={() => { setAsking(calendar); }}>
                Remove calendar
              </button>
            </div>
            <CalendarForm lockId={lockId} keypad={keypad} calendar={calendar} onSaved={load} />
            <h3>Stays</h3>
            {calendar.bookings.length === 0 ? (
              <p>No stays in this calendar yet. A new booking shows here within 10 minutes of being made.</p>
            ) : (
              <ul class="stays">
                {calendar.bookings.map((booking) => (
                  <Stay key={booking.uid} booking={booking} lockId={lockId} lockName={lockName} zone={zone} />
                ))}
              </ul>
            )}
          </section>
        ))
      )}
      {asking !== undefined && (
        <ConfirmDialog
          title="Remove this calendar?"
          text={`Every door code it made on ${lockName} is taken off the lock; guests with upcoming stays will need another way in.`}
          action="Remove"
          onClose={(confirmed) => {
            const calendar = asking;
            setAsking(undefined);
            if (!confirmed) return;
            void api<unknown>('DELETE', `/calendars/${calendar.id}`)
              .then(async () => {
                setSaid('Calendar removed: its door codes are being taken off the lock.');
                saidRef.current?.focus();
                await load();
              })
              .catch((error: unknown) => {
                setFailure(errorText(error));
              });
          }}
        />
      )}
    </>
  );
}
