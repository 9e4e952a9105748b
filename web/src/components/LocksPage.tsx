import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, get, type BoltState, type EKey, type Lock, type LockCommand, type LockEvent, type OwnKey } from '../api.js';
import { failureText, refusalText, usabilityText, worksText } from '../explain.js';
import type { Household } from '../hooks.js';
import { subscribeLockEvents } from '../live.js';
import { onClock } from '../time.js';

const BOLT_TEXT: Readonly<Record<BoltState, string>> = { locked: 'Locked', unlocked: 'Unlocked', jammed: 'Jammed', unknown: 'Unknown' };
const EVENT_WORDS: Readonly<Record<LockEvent['type'], string>> = { lock: 'lock', unlock: 'unlock', battery: 'battery report' };

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** One lock: a region named after it (docs/design.md §7). */
function LockCard({ name, lockId, zone, lock, ownKey, reload }: { name: string; lockId: string; zone: string; lock: Lock | undefined; ownKey: OwnKey; reload: () => Promise<void> }) {
  const [progress, setProgress] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [last, setLast] = useState<LockEvent>();
  const manages = ownKey.type === 'owner' || ownKey.type === 'admin';
  const bolt: BoltState = lock?.bolt_state ?? 'unknown';
  const headingId = `lock-${lockId}`;

  useEffect(
    () =>
      subscribeLockEvents(lockId, (event) => {
        setLast(event);
        void reload();
      }),
    [lockId, reload],
  );

  const command = async (type: 'lock' | 'unlock'): Promise<void> => {
    const verb = type === 'lock' ? 'Lock' : 'Unlock';
    setBusy(true);
    setProgress(type === 'lock' ? 'Locking…' : 'Unlocking…');
    try {
      let sent = await api<LockCommand>('POST', `/locks/${lockId}/commands`, { type });
      while (sent.status === 'created' || sent.status === 'processing') {
        await sleep(250);
        sent = await get<LockCommand>(`/locks/${lockId}/commands/${sent.id}`);
      }
      setProgress(sent.status === 'completed' ? `${verb} finished.` : `${verb} failed: ${failureText(sent.failure_reason)}.`);
      await reload();
    } catch (error) {
      if (error instanceof ApiError && (error.problem.status === 403 || error.problem.status === 404)) {
        // Explain with the key as it is now (its owner may just have changed it), not as last read.
        const keyId = error.problem.ekey_id;
        const current = keyId === undefined ? ownKey : await get<EKey>(`/ekey/${keyId}`).catch(() => ownKey);
        setProgress(refusalText(error.problem, current));
        void reload();
      }
      else setProgress(`${verb} failed: ${error instanceof Error ? error.message : 'unknown error'}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="lock" aria-labelledby={headingId}>
      <h2 id={headingId}>{name}</h2>
      <p class="facts">
        <span class={`bolt bolt-${bolt}`}>{BOLT_TEXT[bolt]}</span>
        {lock && <span class={`online online-${lock.online_status}`}>{lock.online_status === 'online' ? 'Online' : 'Offline'}</span>}
        {lock?.battery_level != null && <span class="battery">Battery {Math.round(lock.battery_level * 100)} %</span>}
      </p>
      {last && (
        <p class="activity">
          Last activity: {EVENT_WORDS[last.type]}
          {last.performer ? ` by ${last.performer.name}` : ''}
          {last.value === undefined ? '' : ` ${Math.round(last.value * 100)} %`} at {onClock(last.timestamp, zone)}
        </p>
      )}
      {!manages && (
        <div class="key-info">
          <p>{usabilityText(ownKey)}</p>
          <p class="hint">{worksText(ownKey, zone)}</p>
        </div>
      )}
      <div class="actions">
        <button type="button" aria-label={`Lock ${name}`} disabled={busy} onClick={() => void command('lock')}>
          Lock
        </button>
        <button type="button" class="primary" aria-label={`Unlock ${name}`} disabled={busy} onClick={() => void command('unlock')}>
          Unlock
        </button>
      </div>
      <p class="progress" role="status" aria-live="polite">
        {progress}
      </p>
      {manages && (
        <nav class="links" aria-label={`Manage ${name}`}>
          <a href={`#/locks/${lockId}/keys`}>Keys of {name}</a>
          <a href={`#/locks/${lockId}/history`}>History of {name}</a>
        </nav>
      )}
    </section>
  );
}

/** Every lock one holds a key for; then one's keys and when each works. */
export function LocksPage({ household, reload }: { household: Household; reload: () => Promise<void> }) {
  // Every lock one holds a key for, a revoked or expired one too (it says so, and a refused command explains it).
  const live = [...household.keys].sort((a, b) => a.lock_name.localeCompare(b.lock_name));
  const others = household.keys.filter((key) => key.type !== 'owner');
  return (
    <>
      <h1 tabIndex={-1}>Your locks</h1>
      {live.length === 0 && <p>You hold no keys. When someone sends you an eKey, its lock appears here.</p>}
      <div class="locks">
        {live.map((key) => (
          <LockCard
            key={key.lock_id}
            name={key.lock_name}
            lockId={key.lock_id}
            zone={key.lock_time_zone}
            lock={household.locks.find((lock) => lock.id === key.lock_id)}
            ownKey={key}
            reload={reload}
          />
        ))}
      </div>
      {others.length > 0 && (
        <section aria-labelledby="my-keys">
          <h2 id="my-keys">Your keys</h2>
          <ul class="my-keys">
            {others.map((key) => (
              <li key={key.id}>
                <strong>{key.lock_name}</strong> ({key.type}) — {usabilityText(key)}
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
