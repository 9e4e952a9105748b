import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { get, type EventPage, type LockEvent } from '../api.js';
import { errorText } from '../hooks.js';
import { subscribeLockEvents } from '../live.js';
import { whenText } from '../time.js';
import type { BatteryChart as BatteryChartType, BatteryPoint } from './BatteryChart.js';

type ChartComponent = typeof BatteryChartType;

/** The chart library is the app's largest part: loaded when a history is first opened, not with the app. */
function useBatteryChart(): ChartComponent | undefined {
  const [chart, setChart] = useState<{ component: ChartComponent }>();
  useEffect(() => {
    void import('./BatteryChart.js').then((module) => {
      setChart({ component: module.BatteryChart });
    });
  }, []);
  return chart?.component;
}

const FILTERS = [
  { value: '', label: 'All events' },
  { value: 'lock,unlock', label: 'Lock and unlock' },
  { value: 'lock', label: 'Lock' },
  { value: 'unlock', label: 'Unlock' },
  { value: 'battery', label: 'Battery' },
  { value: 'ring', label: 'Rings' },
  { value: 'keypad_refused', label: 'Wrong codes at the keypad' },
] as const;

const PAGE = 20;

const MODE_NAMES = { ring_to_open: 'Ring to Open', continuous_mode: 'Continuous Mode' } as const;

/** One event in words (docs/design.md §7: plain language, no field names). */
function describe(event: LockEvent): string {
  switch (event.type) {
    case 'battery':
      return `Battery at ${Math.round((event.value ?? 0) * 100)} %`;
    case 'ring':
      return event.opened === true ? 'Someone rang; the door opened' : 'Someone rang';
    case 'keypad_refused':
      // docs/design.md §4c: never which code; someone may be trying codes at the door.
      return 'A wrong code was typed on the keypad';
    case 'lock':
    case 'unlock':
      break;
  }
  if (event.mode !== undefined) {
    const what = `${MODE_NAMES[event.mode]} ${event.type === 'unlock' ? 'on' : 'off'}`;
    // Without a performer, the service switched it off: the person who switched it on no longer holds their key, or its time was up.
    return event.performer ? `${what} by ${event.performer.name}` : `${what}, switched off by the service`;
  }
  const what = event.type === 'lock' ? 'Lock' : event.unlatched === true ? 'Door opened' : 'Unlock';
  const where = event.via === 'keypad' ? ' with a door code' : '';
  // docs/design.md §12: a rental stay's code, named by the stay's title in its calendar.
  if (event.booking !== undefined) return `${what} with the door code of the stay “${event.booking.summary === '' ? 'without a title' : event.booking.summary}”`;
  return event.performer ? `${what} by ${event.performer.name}${where}` : `${what}${where}`;
}

/** A lock's history: type filter, endless scrolling over the cursor links, live arrivals; the battery chart. */
export function HistoryPage({ lockId, lockName, zone, battery: currentBattery }: { lockId: string; lockName: string; zone: string; battery: number | null }) {
  const [filter, setFilter] = useState('');
  const [events, setEvents] = useState<LockEvent[]>([]);
  const [next, setNext] = useState<string>();
  const [count, setCount] = useState<number>();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string>();
  const [battery, setBattery] = useState<BatteryPoint[]>([]);
  const sentinel = useRef<HTMLDivElement>(null);
  const BatteryChart = useBatteryChart();
  const generation = useRef(0);

  const loadPage = useCallback(
    async (path: string, replace: boolean) => {
      const mine = generation.current;
      setLoading(true);
      try {
        const page = await get<EventPage>(path);
        if (mine !== generation.current) return;
        setEvents((current) => {
          const known = new Set(replace ? [] : current.map((event) => event.id));
          return [...(replace ? [] : current), ...page.lock_events.filter((event) => !known.has(event.id))];
        });
        setNext(page.metadata.next);
        setCount(page.metadata.count);
        setError(undefined);
      } catch (failure) {
        setError(errorText(failure));
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [],
  );

  useEffect(() => {
    generation.current += 1;
    setEvents([]);
    setNext(undefined);
    void loadPage(`/locks/${lockId}/events?limit=${PAGE}${filter === '' ? '' : `&type=${filter}`}`, true);
  }, [lockId, filter, loadPage]);

  useEffect(() => {
    void get<EventPage>(`/locks/${lockId}/events?type=battery&limit=200`)
      .then((page) => {
        setBattery(page.lock_events.map((event) => ({ at: Date.parse(event.timestamp), level: event.value ?? 0 })).reverse());
      })
      .catch(() => undefined);
  }, [lockId]);

  // One stream per lock for as long as the page is open (not per filter: a reconnect could miss events).
  const filterNow = useRef(filter);
  filterNow.current = filter;
  useEffect(
    () =>
      subscribeLockEvents(lockId, (event) => {
        const shown = filterNow.current;
        if (shown === '' || shown.split(',').includes(event.type)) {
          setEvents((current) => (current.some((known) => known.id === event.id) ? current : [event, ...current]));
          setCount((current) => (current === undefined ? current : current + 1));
        }
        if (event.type === 'battery') setBattery((current) => [...current, { at: Date.parse(event.timestamp), level: event.value ?? 0 }]);
      }),
    [lockId],
  );

  useEffect(() => {
    const element = sentinel.current;
    if (!element || next === undefined || loading) return undefined;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) void loadPage(next, false);
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
    };
  }, [next, loading, loadPage]);

  return (
    <>
      <p>
        <a href="#/">← All locks</a>
      </p>
      <h1 tabIndex={-1}>History of {lockName}</h1>
      {BatteryChart ? <BatteryChart lockName={lockName} zone={zone} points={battery} current={currentBattery} /> : <p role="status">Loading the battery chart…</p>}
      <div class="filter">
        <label for="history-filter">Show</label>
        <select id="history-filter" value={filter} onChange={(event) => { setFilter(event.currentTarget.value); }}>
          {FILTERS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
        {count !== undefined && <span class="muted" role="status">{count === 1 ? '1 event' : `${count} events`}</span>}
      </div>
      {error !== undefined && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <ol class="events" aria-label={`Events of ${lockName}`}>
        {events.map((event) => (
          <li key={event.id} class={`event event-${event.type}`}>
            <span>{describe(event)}</span>
            <time dateTime={event.timestamp}>{whenText(event.timestamp, zone)}</time>
          </li>
        ))}
      </ol>
      {events.length === 0 && !loading && error === undefined && (
        <p class="muted">{filter === '' ? 'Nothing has happened at this lock yet.' : 'No events of this kind yet.'}</p>
      )}
      <div ref={sentinel} class="sentinel" />
      {next !== undefined && (
        <button type="button" disabled={loading} onClick={() => void loadPage(next, false)}>
          {loading ? 'Loading…' : 'Show older events'}
        </button>
      )}
    </>
  );
}
