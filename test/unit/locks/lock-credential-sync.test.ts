import { afterEach, describe, expect, it } from '@jest/globals';
import { EKeyChangeNotifier } from '../../../src/access/ekey-change-notifier.js';
import type { CredentialEntry } from '../../../src/gateway/lock-gateway.js';
import { LockCredentialSync, NO_EXPIRY, usableCredentials, type CredentialKey } from '../../../src/locks/lock-credential-sync.js';
import { silentLogger } from '../../../src/logger.js';
import { ManualClock } from '../../support/manual-clock.js';

const LOCK = '6f1c2a8e-0000-4000-8000-000000000001';
const OTHER_LOCK = '6f1c2a8e-0000-4000-8000-000000000002';
const MINUTE = 60_000;
const HOUR = 3_600_000;
/** Thursday 15 January 2026, 12:00:00 UTC. */
const NOON = Date.UTC(2026, 0, 15, 12, 0, 0);

function key(id: string, fields: Partial<CredentialKey> = {}): CredentialKey {
  return { id, status: 'accepted', valid_from: null, valid_to: null, schedule_start: null, schedule_end: null, ...fields };
}

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const B = 'bbbbbbbb-0000-4000-8000-000000000002';
const C = 'cccccccc-0000-4000-8000-000000000003';

describe('usableCredentials', () => {
  it('lists keys usable now only, with valid_to, the end of the schedule window, or no expiry', () => {
    const now = NOON + 30 * MINUTE + 15_000; // 12:30:15
    const entries = usableCredentials(
      [
        key(A),
        key(B, { valid_to: now + 5 * MINUTE }),
        key(C, { schedule_start: '0 9 * * * *', schedule_end: '45 12 * * * *' }),
        key('dddddddd-0000-4000-8000-000000000004', { status: 'revoked' }),
        key('eeeeeeee-0000-4000-8000-000000000005', { status: 'pending' }),
        key('ffffffff-0000-4000-8000-000000000006', { valid_from: now + 1 }),
        key('abababab-0000-4000-8000-000000000007', { valid_to: now }),
        key('cdcdcdcd-0000-4000-8000-000000000008', { schedule_start: '0 13 * * * *', schedule_end: '0 14 * * * *' }),
      ],
      'UTC',
      now,
    );
    expect(entries).toEqual([
      { credential: A, validUntil: NO_EXPIRY },
      { credential: B, validUntil: now + 5 * MINUTE },
      { credential: C, validUntil: NOON + 45 * MINUTE },
    ]);
  });

  it('reads the schedule on the lock’s wall clock, caps a window open past the horizon at a whole hour, and keeps an earlier valid_to', () => {
    // 12:30 UTC is 13:30 in Berlin (CET): the 13:00–14:00 local window ends at 13:00 UTC.
    const now = NOON + 30 * MINUTE;
    expect(usableCredentials([key(A, { schedule_start: '0 13 * * * *', schedule_end: '0 14 * * * *' })], 'Europe/Berlin', now)).toEqual([
      { credential: A, validUntil: NOON + HOUR },
    ]);
    // Open all day: the expiry is the end of the next whole hour (re-extended by the re-evaluation).
    expect(usableCredentials([key(A, { schedule_start: '0 0 * * * *', schedule_end: '59 23 * * * *' })], 'UTC', now)).toEqual([
      { credential: A, validUntil: NOON + 2 * HOUR },
    ]);
    expect(usableCredentials([key(A, { schedule_start: '0 0 * * * *', schedule_end: '59 23 * * * *', valid_to: now + MINUTE })], 'UTC', now)).toEqual([
      { credential: A, validUntil: now + MINUTE },
    ]);
  });
});

describe('LockCredentialSync', () => {
  const syncs: LockCredentialSync[] = [];
  afterEach(() => {
    for (const sync of syncs.splice(0)) sync.stop();
  });

  function rig(): {
    clock: ManualClock;
    keys: Map<string, CredentialKey[]>;
    pushes: [string, CredentialEntry[]][];
    changes: EKeyChangeNotifier;
    sync: LockCredentialSync;
  } {
    const clock = new ManualClock(NOON + 10_000);
    const keys = new Map<string, CredentialKey[]>([[LOCK, [key(A)]]]);
    const pushes: [string, CredentialEntry[]][] = [];
    const changes = new EKeyChangeNotifier();
    const sync = new LockCredentialSync({
      gateway: {
        lockIds: () => [LOCK],
        setCredentials: (lockId, entries) => {
          pushes.push([lockId, [...entries]]);
          return Promise.resolve();
        },
      },
      locks: { findById: (id) => (id === LOCK ? { id, timeZone: 'UTC' } : undefined) },
      keys: { listByLock: (id) => keys.get(id) ?? [] },
      changes,
      clock,
      logger: silentLogger,
    });
    syncs.push(sync);
    return { clock, keys, pushes, changes, sync };
  }

  it('pushes every gateway lock on start, one lock on each change of its keys, nothing for other locks or after stop', async () => {
    const { keys, pushes, changes, sync } = rig();
    sync.start();
    await Promise.resolve();
    expect(pushes).toEqual([[LOCK, [{ credential: A, validUntil: NO_EXPIRY }]]]);
    keys.set(LOCK, [key(A, { status: 'revoked' }), key(B)]);
    changes.notify(LOCK.toUpperCase());
    changes.notify(OTHER_LOCK);
    await Promise.resolve();
    expect(pushes.slice(1)).toEqual([[LOCK, [{ credential: B, validUntil: NO_EXPIRY }]]]);
    sync.stop();
    changes.notify(LOCK);
    await Promise.resolve();
    expect(pushes).toHaveLength(2);
  });

  it('the re-evaluation opens a key at its valid_from and a store failure is survived', async () => {
    const { clock, keys, pushes, sync } = rig();
    keys.set(LOCK, [key(B, { valid_from: NOON + 20_000 })]);
    sync.start();
    await sync.reevaluate();
    expect(pushes.at(-1)).toEqual([LOCK, []]);
    clock.set(NOON + 20_000);
    await sync.reevaluate();
    expect(pushes.at(-1)).toEqual([LOCK, [{ credential: B, validUntil: NO_EXPIRY }]]);
    keys.set(LOCK, [key(B, { schedule_start: 'not a schedule', schedule_end: '0 1 * * * *' })]);
    const before = pushes.length;
    await sync.reevaluate();
    expect(pushes.length).toBe(before); // nothing pushed for that lock; no throw
  });
});
