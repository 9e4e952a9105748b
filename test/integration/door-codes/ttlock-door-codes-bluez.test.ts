import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import { DoorCodeService } from '../../../src/access/door-code-service.js';
import type { EKeyType } from '../../../src/domain/ekey-types.js';
import { doorCodeRulesOf } from '../../../src/families/registry.js';
import type { SimulatedTtlock } from '../../../src/families/ttlock/simulator/simulated-ttlock.js';
import { LockGateway } from '../../../src/gateway/lock-gateway.js';
import { BluezTransport } from '../../../src/gateway/transports/bluez/bluez-transport.js';
import { DoorCodeSync } from '../../../src/locks/door-code-sync.js';
import { openDatabase, transactionRunner, type SqliteDatabase } from '../../../src/store/database.js';
import { DoorCodeRepository } from '../../../src/store/door-code-repository.js';
import { EKeyRepository, type StoredEKey } from '../../../src/store/ekey-repository.js';
import { LockRepository } from '../../../src/store/lock-repository.js';
import { UserRepository } from '../../../src/store/user-repository.js';
import { startFakeBluezEnvironment, type FakeBluezEnvironment } from '../../support/fake-bluez/fake-bluez-environment.js';
import { testLogger } from '../../support/fake-bluez/test-logger.js';
import { lockRecord } from '../../support/lock-record.js';
import { ManualClock } from '../../support/manual-clock.js';
import { until } from '../../support/polling.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { pairedSimulatedTtlock, testTtlockCredentials } from '../../support/ttlock-gateway-rig.js';
import { TtlockDriver } from '../../../src/families/ttlock/driver/ttlock-driver.js';

/**
 * Door codes on a TTLock (docs/design.md §4c, §4f) as the service runs them, over the production
 * BLE path (BluezTransport → a private dbus-daemon → the fake BlueZ → a simulated TTLock): a plain
 * window is written onto the lock; a scheduled key is enforced by the service — the code goes on
 * at each window start, with that window's end, and comes off at each end — across midnight and
 * across the DST change in the lock's zone; a full passcode store is `keypad_full`. The lock judges
 * every entry itself, on its own clock.
 */

const ZONE = 'Europe/Berlin';
let environment: FakeBluezEnvironment;
let work: string;
let nextAddress = 0x10;

beforeAll(async () => {
  environment = await startFakeBluezEnvironment({ advertisementIntervalMs: 100 });
  work = mkdtempSync(join(tmpdir(), 'ekey-ttlock-door-codes-'));
});

afterAll(async () => {
  await environment.stop();
  rmSync(work, { recursive: true, force: true });
});

interface Rig {
  clock: ManualClock;
  lock: SimulatedTtlock;
  db: SqliteDatabase;
  doorCodes: DoorCodeRepository;
  service: DoorCodeService;
  gateway: LockGateway;
  transport: BluezTransport;
  sync: DoorCodeSync;
  logger: RecordingLogger;
  lockId: string;
  ownerId: string;
  changes: EventEmitter<{ change: [string] }>;
}

const rigs: Rig[] = [];
afterEach(async () => {
  for (const rig of rigs.splice(0)) {
    rig.sync.stop();
    await rig.sync.settled();
    await rig.gateway.stop();
    await rig.transport.close();
    rig.db.close();
  }
});

async function newRig(startIso: string, options: { passcodeCapacity?: number } = {}): Promise<Rig> {
  const clock = new ManualClock(Date.parse(startIso));
  const address = `C0:FF:EE:7D:00:${(nextAddress++).toString(16).toUpperCase().padStart(2, '0')}`;
  const lock = pairedSimulatedTtlock({ address, name: 'Side Door', clock, timeZone: ZONE, ...(options.passcodeCapacity === undefined ? {} : { passcodeCapacity: options.passcodeCapacity }) });
  environment.bluez.addDevice(lock);
  const db = openDatabase(join(work, `${randomUUID()}.sqlite`));
  const lockId = randomUUID();
  const ownerId = randomUUID();
  new UserRepository(db).insert({ id: ownerId, email: 'olivia@example.org', name: 'Olivia', passwordHash: null, ekeyQuota: null, canSendEkeys: true, createdAt: clock.now() });
  new LockRepository(db).upsert(lockRecord({ id: lockId, name: 'Side Door', family: 'ttlock', bleAddress: address, timeZone: ZONE, ownerId, keypad: true, createdAt: clock.now() }));
  const logger = new RecordingLogger();
  const transport = new BluezTransport({ busAddress: environment.busAddress, discoveryIntervalMs: 20, operationTimeoutMs: 3_000, logger: testLogger() });
  const gateway = new LockGateway(transport, clock, logger, { connectTimeoutMs: 5_000, operationTimeoutMs: 3_000, commandTimeoutMs: 8_000, presenceCheckIntervalMs: 3_600_000 });
  gateway.addLock({ id: lockId, address, name: 'Side Door', driver: new TtlockDriver(testTtlockCredentials(), { timeZone: ZONE, idleDisconnectMs: 100, retryPauseMs: 50 }) });
  const doorCodes = new DoorCodeRepository(db);
  const changes = new EventEmitter<{ change: [string] }>();
  const sync = new DoorCodeSync({
    doorCodes,
    ekeys: new EKeyRepository(db),
    locks: new LockRepository(db),
    gateway,
    clock,
    logger,
    sessionTimeoutMs: 8_000,
    changes: {
      onChange: (listener) => {
        changes.on('change', listener);
        return () => changes.off('change', listener);
      },
    },
  });
  const rules = doorCodeRulesOf('ttlock');
  const service = new DoorCodeService({ doorCodes, clock, keypadRulesOf: () => rules });
  const rig: Rig = { clock, lock, db, doorCodes, service, gateway, transport, sync, logger, lockId, ownerId, changes };
  rigs.push(rig);
  gateway.start();
  expect(await gateway.refresh(lockId)).toBe(true);
  sync.start();
  return rig;
}

function giveKey(rig: Rig, fields: { type?: EKeyType; valid_from?: number | null; valid_to?: number | null; schedule_start?: string | null; schedule_end?: string | null }): StoredEKey {
  const now = rig.clock.now();
  const holder = randomUUID();
  new UserRepository(rig.db).insert({ id: holder, email: `${holder}@example.org`, name: 'Guest', passwordHash: null, ekeyQuota: null, canSendEkeys: false, createdAt: now });
  const key: StoredEKey = {
    id: randomUUID(),
    lock_id: rig.lockId,
    user_id: holder,
    name: null,
    type: fields.type ?? 'scheduled',
    status: 'accepted',
    valid_from: fields.valid_from ?? null,
    valid_to: fields.valid_to ?? null,
    schedule_start: fields.schedule_start ?? null,
    schedule_end: fields.schedule_end ?? null,
    message: null,
    sent_by: rig.ownerId,
    created_at: now,
    updated_at: now,
    revoked_at: null,
  };
  const ekeys = new EKeyRepository(rig.db);
  transactionRunner(rig.db)(() => {
    ekeys.insert(key);
    rig.service.afterSend(key, true);
  });
  rig.changes.emit('change', rig.lockId);
  return key;
}

/** Moves the clock and lets the engine act on it (what its timer does at the instant). */
async function at(rig: Rig, iso: string): Promise<void> {
  rig.clock.set(Date.parse(iso));
  await rig.sync.reevaluate();
  await rig.sync.settled();
}

const codeOf = (rig: Rig, keyId: string): string => rig.doorCodes.currentFor(keyId)?.code ?? '';
const onLock = (rig: Rig, keyId: string): boolean => rig.lock.passcodes().some((passcode) => passcode.code === codeOf(rig, keyId));

describe('TTLock door codes over the fake BlueZ', () => {
  it('writes a plain window onto the lock (enforced by the lock); the lock opens inside it and refuses after it', async () => {
    const rig = await newRig('2026-06-13T10:00:00Z');
    const key = giveKey(rig, { type: 'guest', valid_from: Date.parse('2026-06-13T10:00:00Z'), valid_to: Date.parse('2026-06-14T10:00:00Z') });
    await until(() => rig.doorCodes.currentFor(key.id)?.state === 'set', 'the code set on the lock');
    expect(rig.doorCodes.currentFor(key.id)?.enforcedBy).toBe('lock');
    expect(rig.lock.passcodes()).toEqual([{ type: 3, code: codeOf(rig, key.id), start: { year: 2026, month: 6, day: 13, hour: 12, minute: 0, second: 0 }, end: { year: 2026, month: 6, day: 14, hour: 12, minute: 0, second: 0 } }]);
    expect(rig.lock.typeCode(codeOf(rig, key.id), 'unlock')).toBe('unlocked');
    // Out of reach of the service, the lock still ends the window itself.
    rig.lock.goOutOfRange();
    rig.clock.set(Date.parse('2026-06-14T10:00:01Z'));
    expect(rig.lock.typeCode(codeOf(rig, key.id), 'unlock')).toBe('refused');
  });

  it('a window across midnight is enforced by the service: on the lock from 22:00 with that night’s end, off at 06:00', async () => {
    const rig = await newRig('2026-06-13T18:00:00Z');
    const key = giveKey(rig, { schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    await until(() => rig.doorCodes.currentFor(key.id)?.state === 'set', 'the row settled');
    expect(rig.doorCodes.currentFor(key.id)?.enforcedBy).toBe('service');
    expect(onLock(rig, key.id)).toBe(false);
    expect(rig.lock.typeCode(codeOf(rig, key.id), 'unlock')).toBe('refused');
    // 22:00 in Berlin (UTC+2).
    await at(rig, '2026-06-13T20:00:00Z');
    expect(rig.lock.passcodes()).toEqual([{ type: 3, code: codeOf(rig, key.id), start: { year: 2000, month: 1, day: 1, hour: 0, minute: 0, second: 0 }, end: { year: 2026, month: 6, day: 14, hour: 6, minute: 0, second: 0 } }]);
    await at(rig, '2026-06-13T23:30:00Z');
    expect(rig.lock.typeCode(codeOf(rig, key.id), 'unlock')).toBe('unlocked');
    await at(rig, '2026-06-14T04:00:00Z');
    expect(onLock(rig, key.id)).toBe(false);
    expect(rig.lock.typeCode(codeOf(rig, key.id), 'unlock')).toBe('refused');
    expect(rig.doorCodes.currentFor(key.id)).toMatchObject({ state: 'set', enforcedBy: 'service' });
  });

  it('a lock the service cannot reach at the window’s end still closes it: the window’s end is on the lock', async () => {
    const rig = await newRig('2026-06-13T18:00:00Z');
    const key = giveKey(rig, { schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    await at(rig, '2026-06-13T20:00:00Z');
    expect(onLock(rig, key.id)).toBe(true);
    rig.lock.goOutOfRange();
    await until(() => !rig.gateway.isReachable(rig.lockId) || rig.gateway.getSnapshot(rig.lockId)?.connected === false, 'the lock away');
    await at(rig, '2026-06-14T04:30:00Z');
    // Still on the lock (nobody could take it off) — and refused by the lock's own window.
    expect(onLock(rig, key.id)).toBe(true);
    expect(rig.lock.typeCode(codeOf(rig, key.id), 'unlock')).toBe('refused');
  });

  it('across the spring-forward night: the window ends at 06:00 summer time once the service has set the lock’s clock', async () => {
    // Saturday 28 March 2026, 21:30 CET; the clocks go 02:00 → 03:00 on the 29th.
    const rig = await newRig('2026-03-28T20:30:00Z');
    const key = giveKey(rig, { schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    await at(rig, '2026-03-28T21:00:00Z');
    expect(rig.lock.passcodes()[0]?.end).toEqual({ year: 2026, month: 3, day: 29, hour: 6, minute: 0, second: 0 });
    // 06:30 CEST = 04:30Z. The lock's plain clock did not jump: it shows 05:30 and would still open.
    rig.clock.set(Date.parse('2026-03-29T04:30:00Z'));
    expect(rig.lock.lockTime()).toMatchObject({ hour: 5, minute: 30 });
    // The service reads the lock at the DST change (its timer) and sets the clock: a read now does the same.
    expect(await rig.gateway.refresh(rig.lockId)).toBe(true);
    expect(rig.lock.lockTime()).toMatchObject({ hour: 6, minute: 30 });
    expect(rig.logger.text()).toContain('its clock was off by -3600 s; set it.');
    expect(rig.lock.typeCode(codeOf(rig, key.id), 'unlock')).toBe('refused');
    await at(rig, '2026-03-29T04:30:00Z');
    expect(onLock(rig, key.id)).toBe(false);
  });

  it('a full passcode store is keypad_full; the code waits and goes on once there is room', async () => {
    const rig = await newRig('2026-06-13T10:00:00Z', { passcodeCapacity: 1 });
    rig.lock.addVendorCode('012345');
    const key = giveKey(rig, { type: 'anytime' });
    await until(() => rig.doorCodes.currentFor(key.id)?.state === 'failed', 'the refused write');
    expect(rig.doorCodes.currentFor(key.id)).toMatchObject({ state: 'failed', failureReason: 'keypad_full' });
    expect(rig.logger.text()).not.toContain(codeOf(rig, key.id));
    rig.lock.passcodeStore.remove('012345');
    rig.changes.emit('change', rig.lockId);
    await until(() => rig.doorCodes.currentFor(key.id)?.state === 'set', 'the code set once there is room');
    expect(onLock(rig, key.id)).toBe(true);
  });
});
