import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, get, type BoltState, type CommandType, type EKey, type Lock, type LockCommand, type LockEvent, type OwnKey } from '../api.js';
import { failureText, refusalText, usabilityText, worksText } from '../explain.js';
import { errorText, type Household } from '../hooks.js';
import { subscribeLockEvents } from '../live.js';
import { keyWindowText, whenText } from '../time.js';
import { DoorCodeInfo } from './DoorCodeInfo.js';
import { gatewayText } from '../signal.js';

const BOLT_TEXT: Readonly<Record<BoltState, string>> = { locked: 'Locked', unlocked: 'Unlocked', jammed: 'Jammed', unknown: 'Unknown' };
const EVENT_WORDS: Readonly<Record<LockEvent['type'], string>> = { lock: 'lock', unlock: 'unlock', battery: 'battery report', ring: 'a ring', keypad_refused: 'a wrong code at the keypad' };
/** What each button says, what it shows while running, and its name's first word (docs/design.md §7). */
const COMMAND_WORDS: Readonly<Record<CommandType, { verb: string; running: string }>> = {
  lock: { verb: 'Lock', running: 'Locking…' },
  unlock: { verb: 'Unlock', running: 'Unlocking…' },
  unlatch: { verb: 'Open', running: 'Opening…' },
};

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/**
 * An Opener's mode in words (docs/design.md §4d): which one is on, who switched it on (owners and
 * admins are told), and until when when the owner capped it.
 */
export function openerModeText(lock: Lock, zone: string): string {
  switch (lock.opener_mode) {
    case 'continuous':
    case 'ring_to_open': {
      const what = lock.opener_mode === 'continuous' ? 'Continuous Mode is on: every ring opens the door' : 'Ring to Open is on: the next ring opens the door';
      const who = lock.opener_mode_set_by == null ? '' : `, switched on by ${lock.opener_mode_set_by.name}`;
      const until = lock.opener_mode_until == null ? '' : `, until ${whenText(lock.opener_mode_until, zone)}`;
      return `${what}${who}${until}.`;
    }
    default:
      return 'Ring to Open and Continuous Mode are off: a ring does not open the door.';
  }
}

/**
 * The one key a card acts with when the user holds several on a lock (a revoked one and a current
 * one, say): the one usable now, else the one that will be, else the newest that is not revoked.
 */
export function cardKey(keys: readonly OwnKey[]): OwnKey | undefined {
  const rank = (key: OwnKey): number =>
    key.usable_now ? 0 : key.not_usable_because === 'outside_schedule' || key.not_usable_because === 'not_yet_valid' ? 1 : key.status === 'revoked' ? 3 : 2;
  return [...keys].sort((a, b) => rank(a) - rank(b))[0];
}

/** One lock: a region named after it (docs/design.md §7), whatever keys the user holds on it. */
function LockCard({ lock, ownKey, reload }: { lock: Lock | undefined; ownKey: OwnKey; reload: () => Promise<void> }) {
  const name = ownKey.lock_name;
  const lockId = ownKey.lock_id;
  const zone = ownKey.lock_time_zone;
  const [progress, setProgress] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [last, setLast] = useState<LockEvent>();
  const busyNow = useRef(false);
  const manages = ownKey.type === 'owner' || ownKey.type === 'admin';
  const bolt: BoltState = lock?.bolt_state ?? 'unknown';
  const offline = lock?.online_status === 'offline';
  // docs/design.md §4d: `Open <lock name>` (unlatch) only on a lock that says it can.
  const canOpen = lock?.supported_commands.includes('unlatch') === true;
  const headingId = `lock-${lockId}`;
  const reasonId = `lock-${lockId}-offline`;

  useEffect(
    () =>
      subscribeLockEvents(lockId, (event) => {
        setLast(event);
        void reload();
      }),
    [lockId, reload],
  );

  const command = async (type: CommandType): Promise<void> => {
    // The buttons stay enabled (aria-disabled) while a command runs: disabling the pressed button
    // would drop the keyboard focus to the page (docs/design.md §7: focus stays on it).
    if (busyNow.current || offline) return;
    busyNow.current = true;
    const { verb, running } = COMMAND_WORDS[type];
    setBusy(true);
    setFailure(undefined);
    setProgress(running);
    try {
      let sent = await api<LockCommand>('POST', `/locks/${lockId}/commands`, { type });
      while (sent.status === 'created' || sent.status === 'processing') {
        await sleep(250);
        sent = await get<LockCommand>(`/locks/${lockId}/commands/${sent.id}`);
      }
      if (sent.status === 'completed') setProgress(`${verb} finished.`);
      else {
        setProgress(undefined);
        setFailure(`${verb} failed: ${failureText(sent.failure_reason)}.`);
      }
      await reload();
    } catch (error) {
      setProgress(undefined);
      if (error instanceof ApiError && (error.problem.status === 403 || error.problem.status === 404)) {
        // Explain with the key as it is now (its owner may just have changed it), not as last read.
        const keyId = error.problem.ekey_id;
        const current = keyId === undefined ? ownKey : await get<EKey>(`/ekey/${keyId}`).catch(() => ownKey);
        setFailure(refusalText(error.problem, current));
        void reload();
      } else setFailure(`${verb} failed: ${errorText(error)}`);
    } finally {
      busyNow.current = false;
      setBusy(false);
    }
  };

  // The main button follows the state: Unlock when locked (or unknown), Lock when unlocked.
  const main: 'lock' | 'unlock' = bolt === 'unlocked' ? 'lock' : 'unlock';
  const actionButton = (type: CommandType) => (
    <button
      type="button"
      class={type === main ? 'primary' : 'secondary'}
      aria-label={`${COMMAND_WORDS[type].verb} ${name}`}
      aria-disabled={busy ? 'true' : undefined}
      disabled={offline}
      aria-describedby={offline ? reasonId : undefined}
      onClick={() => void command(type)}
    >
      {COMMAND_WORDS[type].verb}
    </button>
  );

  return (
    <section class="lock" aria-labelledby={headingId}>
      <h2 id={headingId}>{name}</h2>
      <p class="facts">
        <span class={`bolt bolt-${bolt}`}>{BOLT_TEXT[bolt]}</span>
        {lock && <span class={`online online-${lock.online_status}`}>{offline ? 'Offline' : 'Online'}</span>}
        {lock?.battery_level != null && <span class="battery">Battery {Math.round(lock.battery_level * 100)} %</span>}
        {lock?.gateway != null && <span class="gateway">{gatewayText(lock.gateway)}</span>}
      </p>
      {/* docs/design.md §4f: a lock that cannot sense its bolt shows the last state it was set to, and says so. */}
      {lock?.bolt_state_source === 'assumed' && <p class="hint bolt-assumed">As last set by this app, a command or the keypad: this lock does not notice a turn by hand.</p>}
      {last && (
        <p class="activity">
          Last activity: {last.unlatched === true ? 'door opened' : EVENT_WORDS[last.type]}
          {last.performer ? ` by ${last.performer.name}` : ''}
          {last.value === undefined ? '' : ` ${Math.round(last.value * 100)} %`} on {whenText(last.timestamp, zone)}
        </p>
      )}
      {lock?.opener_mode !== undefined && <p class={`opener-mode opener-mode-${lock.opener_mode}`}>{openerModeText(lock, zone)}</p>}
      {!manages && (
        <div class="key-info">
          <p>{usabilityText(ownKey)}</p>
          <p class="hint">{worksText(ownKey, zone)}</p>
        </div>
      )}
      {ownKey.door_code?.code != null && ownKey.status !== 'revoked' && (
        <DoorCodeInfo
          doorCode={ownKey.door_code}
          zone={zone}
          idPrefix={`lock-${lockId}`}
          worksText={`It works ${keyWindowText(ownKey, zone)}.`}
          forHolder
        />
      )}
      {offline && (
        <p class="offline-reason" id={reasonId}>
          The lock is offline: it cannot be {canOpen ? 'locked, unlocked or opened' : 'locked or unlocked'} until it is reachable again.
        </p>
      )}
      <div class={`actions main-${main}`}>
        {actionButton('lock')}
        {actionButton('unlock')}
        {canOpen && actionButton('unlatch')}
      </div>
      <p class="progress" role="status" aria-live="polite">
        {progress}
      </p>
      <p class="error" role="alert">
        {failure}
      </p>
      {manages && (
        <nav class="links" aria-label={`Manage ${name}`}>
          <a href={`#/locks/${lockId}/keys`}>Keys of {name}</a>
          <a href={`#/locks/${lockId}/history`}>History of {name}</a>
          {ownKey.type === 'owner' && <a href={`#/locks/${lockId}/bookings`}>Bookings of {name}</a>}
        </nav>
      )}
    </section>
  );
}

/** Every lock one holds a key for — one card each, a revoked or expired key's lock too (it says so). */
export function LocksPage({ household, reload }: { household: Household; reload: () => Promise<void> }) {
  const byLock = new Map<string, OwnKey[]>();
  for (const key of household.keys) byLock.set(key.lock_id, [...(byLock.get(key.lock_id) ?? []), key]);
  const cards = [...byLock.values()]
    .map((keys) => cardKey(keys))
    .filter((key): key is OwnKey => key !== undefined)
    .sort((a, b) => a.lock_name.localeCompare(b.lock_name));
  return (
    <>
      <h1 tabIndex={-1}>Your locks</h1>
      {cards.length === 0 && <p>You hold no keys. When someone sends you an eKey, its lock appears here.</p>}
      <div class="locks">
        {cards.map((key) => (
          <LockCard key={key.lock_id} lock={household.locks.find((lock) => lock.id === key.lock_id)} ownKey={key} reload={reload} />
        ))}
      </div>
    </>
  );
}
