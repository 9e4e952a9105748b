import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DoorCodeService } from '../../../src/access/door-code-service.js';
import type { DoorCodeRules } from '../../../src/domain/door-code.js';
import type { EKeyType } from '../../../src/domain/ekey-types.js';
import { KeypadError, type KeypadAccess, type KeypadCode, type KeypadCodeWrite, type KeypadSessionResult } from '../../../src/gateway/keypad-access.js';
import { DoorCodeSync } from '../../../src/locks/door-code-sync.js';
import { openDatabase, transactionRunner, type SqliteDatabase } from '../../../src/store/database.js';
import { DoorCodeRepository } from '../../../src/store/door-code-repository.js';
import { EKeyRepository, type StoredEKey } from '../../../src/store/ekey-repository.js';
import { LockRepository } from '../../../src/store/lock-repository.js';
import { UserRepository } from '../../../src/store/user-repository.js';
import { lockRecord } from '../../support/lock-record.js';
import { ManualClock } from '../../support/manual-clock.js';
import { until } from '../../support/polling.js';
import { RecordingLogger } from '../../support/recording-logger.js';

/**
 * docs/door-codes.md "Who enforces the window": a keypad that holds one date range per code and
 * cannot switch a code off (its family's `canDisableCodes: false`). A scheduled key's code is
 * `enforced_by: service` — put on the lock at each window start, with that window's end as its
 * date range, and taken off at each end — with the windows read in the lock's zone, across
 * midnight and across the DST change. The keypad here is in memory; it keeps no names.
 */

const ZONE = 'Europe/Berlin';
const DATE_RANGE_ONLY: DoorCodeRules = { length: 6, digits: '0123456789', forbiddenPrefixes: [], capacity: 150, weeklyWindow: false, canDisableCodes: false };

/** A keypad without an off switch or names: it holds codes with a date range, and refuses a code switched off. */
class DateRangeKeypad implements KeypadAccess {
  readonly codes = new Map<number, KeypadCode>();
  adds = 0;
  removes = 0;
  /** The next add is applied, but its answer never arrives (the link drops). */
  loseNextAddAnswer = false;

  listCodes(): Promise<KeypadCode[]> {
    return Promise.resolve([...this.codes.values()].map((code) => ({ ...code, window: { ...code.window } })));
  }

  addCode(code: KeypadCodeWrite): Promise<number> {
    if (!code.enabled) throw new Error('this keypad holds no code switched off');
    if ([...this.codes.values()].some((held) => held.code === code.code)) return Promise.reject(new KeypadError('code_exists', 'exists'));
    this.adds += 1;
    const codeId = Number(`1${code.code}`);
    this.codes.set(codeId, { codeId, code: code.code, name: '', enabled: true, window: { ...code.window } });
    if (this.loseNextAddAnswer) {
      this.loseNextAddAnswer = false;
      return Promise.reject(new KeypadError('link_lost', 'the link dropped'));
    }
    return Promise.resolve(codeId);
  }

  updateCode(codeId: number, code: KeypadCodeWrite): Promise<void> {
    if (!code.enabled) throw new Error('this keypad holds no code switched off');
    const held = this.codes.get(codeId);
    if (held === undefined) return Promise.reject(new KeypadError('refused_by_lock', 'no such code'));
    this.codes.set(codeId, { ...held, window: { ...code.window } });
    return Promise.resolve();
  }

  removeCode(codeId: number): Promise<void> {
    if (!this.codes.delete(codeId)) return Promise.reject(new KeypadError('refused_by_lock', 'no such code'));
    this.removes += 1;
    return Promise.resolve();
  }
}

interface Rig {
  db: SqliteDatabase;
  clock: ManualClock;
  keypad: DateRangeKeypad;
  sync: DoorCodeSync;
  doorCodes: DoorCodeRepository;
  service: DoorCodeService;
  lockId: string;
  ownerId: string;
  logger: RecordingLogger;
}

let rig: Rig;

function newRig(startIso: string): Rig {
  const db = openDatabase(':memory:');
  const clock = new ManualClock(Date.parse(startIso));
  const keypad = new DateRangeKeypad();
  const lockId = randomUUID();
  const ownerId = randomUUID();
  new UserRepository(db).insert({ id: ownerId, email: 'olivia@example.org', name: 'Olivia', passwordHash: null, ekeyQuota: null, canSendEkeys: true, createdAt: clock.now() });
  new LockRepository(db).upsert(lockRecord({ id: lockId, name: 'Side Door', family: 'date-range-test', timeZone: ZONE, ownerId, keypad: true, createdAt: clock.now() }));
  const doorCodes = new DoorCodeRepository(db);
  const logger = new RecordingLogger();
  const sync = new DoorCodeSync({
    doorCodes,
    ekeys: new EKeyRepository(db),
    locks: new LockRepository(db),
    gateway: {
      keypadSession: async <T>(_lockId: string, work: (access: KeypadAccess) => Promise<T>): Promise<KeypadSessionResult<T>> => ({ status: 'done', value: await work(keypad) }),
      isReachable: () => true,
      on: () => undefined,
      off: () => undefined,
    },
    clock,
    logger,
    keypadRulesOf: () => DATE_RANGE_ONLY,
  });
  const service = new DoorCodeService({ doorCodes, clock, keypadRulesOf: () => DATE_RANGE_ONLY });
  return { db, clock, keypad, sync, doorCodes, service, lockId, ownerId, logger };
}

function giveKey(fields: { type?: EKeyType; valid_from?: number | null; valid_to?: number | null; schedule_start?: string | null; schedule_end?: string | null }): StoredEKey {
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
  return key;
}

/** The code the lock holds for a key, or undefined. */
function onLock(keyId: string): KeypadCode | undefined {
  const code = rig.doorCodes.currentFor(keyId)?.code;
  return [...rig.keypad.codes.values()].find((held) => held.code === code);
}

async function at(iso: string): Promise<void> {
  rig.clock.set(Date.parse(iso));
  await rig.sync.reevaluate();
}

afterEach(() => {
  rig.sync.stop();
  rig.db.close();
});

describe('a scheduled key on a keypad that holds a date range and no off switch', () => {
  beforeEach(() => {
    // A Saturday in June, 12:00 in Berlin (UTC+2).
    rig = newRig('2026-06-13T10:00:00Z');
    rig.sync.start();
  });

  it('is enforced by the service: off the lock outside its window, still `set`', async () => {
    const key = giveKey({ schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    await at('2026-06-13T10:00:00Z');
    expect(rig.doorCodes.currentFor(key.id)).toMatchObject({ state: 'set', enforcedBy: 'service', written: { enabled: false } });
    expect(rig.keypad.codes.size).toBe(0);
    expect(rig.keypad.adds).toBe(0);
  });

  it('goes on at the window start with that window’s end (across midnight) and comes off at the end', async () => {
    const key = giveKey({ schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    await at('2026-06-13T10:00:00Z');
    // 22:00 Berlin is 20:00Z; the window ends at 06:00 the next morning (04:00Z).
    await at('2026-06-13T20:00:00Z');
    expect(onLock(key.id)?.window).toEqual({ allowedFrom: null, allowedUntil: Date.parse('2026-06-14T04:00:00Z'), weekdays: [], fromTime: null, untilTime: null });
    const lockCodeId = onLock(key.id)?.codeId;
    expect(rig.doorCodes.currentFor(key.id)).toMatchObject({ state: 'set', enforcedBy: 'service', written: { enabled: true }, lockCodeId });
    await at('2026-06-14T03:59:59Z');
    expect(onLock(key.id)).toBeDefined();
    await at('2026-06-14T04:00:00Z');
    expect(onLock(key.id)).toBeUndefined();
    expect(rig.keypad.removes).toBe(1);
    // The row keeps the code's id on the lock: an entry read from the log later is still the holder's.
    expect(rig.doorCodes.currentFor(key.id)).toMatchObject({ state: 'set', written: { enabled: false }, lockCodeId });
    expect(rig.doorCodes.findByLockCodeId(rig.lockId, lockCodeId ?? -1)?.ekeyId).toBe(key.id);
    // The next evening it goes on again with the same digits.
    const code = rig.doorCodes.currentFor(key.id)?.code;
    await at('2026-06-14T20:00:00Z');
    expect(onLock(key.id)).toMatchObject({ code, window: { allowedUntil: Date.parse('2026-06-15T04:00:00Z') } });
  });

  it('ends the window the lock holds at the key’s end when that comes first', async () => {
    const validTo = Date.parse('2026-06-14T01:00:00Z');
    const key = giveKey({ valid_to: validTo, schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    await at('2026-06-13T20:00:00Z');
    expect(onLock(key.id)?.window.allowedUntil).toBe(validTo);
    await at('2026-06-14T01:00:00Z');
    expect(onLock(key.id)).toBeUndefined();
    expect(rig.doorCodes.currentFor(key.id)?.state).toBe('removed');
  });

  it('plans a timer for the next edge itself (no test call needed)', async () => {
    const key = giveKey({ schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    await at('2026-06-13T19:59:59.950Z');
    expect(onLock(key.id)).toBeUndefined();
    // The timer fires on the real clock 50 ms later; the manual clock shows the window start by then.
    rig.clock.set(Date.parse('2026-06-13T20:00:00Z'));
    await until(() => onLock(key.id) !== undefined, 'the code on the lock at the window start');
    await rig.sync.settled();
    expect(rig.doorCodes.currentFor(key.id)).toMatchObject({ state: 'set', written: { enabled: true } });
  });

  it('a plain date range stays on the lock, enforced by the lock', async () => {
    const from = Date.parse('2026-06-13T08:00:00Z');
    const to = Date.parse('2026-06-20T08:00:00Z');
    const key = giveKey({ type: 'guest', valid_from: from, valid_to: to });
    await at('2026-06-13T10:00:00Z');
    expect(onLock(key.id)?.window).toEqual({ allowedFrom: from, allowedUntil: to, weekdays: [], fromTime: null, untilTime: null });
    expect(rig.doorCodes.currentFor(key.id)).toMatchObject({ state: 'set', enforcedBy: 'lock' });
  });

  it('finds its own code the lock took but never confirmed by the digits (the keypad keeps no names): no second code', async () => {
    rig.keypad.loseNextAddAnswer = true;
    const key = giveKey({ type: 'anytime' });
    await at('2026-06-13T10:00:00Z');
    expect(rig.doorCodes.currentFor(key.id)).toMatchObject({ state: 'failed', failureReason: 'link_lost' });
    await at('2026-06-13T10:01:00Z');
    expect(rig.keypad.adds).toBe(1);
    expect(rig.keypad.codes.size).toBe(1);
    expect(rig.doorCodes.currentFor(key.id)).toMatchObject({ state: 'set', lockCodeId: onLock(key.id)?.codeId });
  });

  it('never writes a code switched off (the keypad has no such thing) and never logs the digits', async () => {
    const key = giveKey({ schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    for (const iso of ['2026-06-13T10:00:00Z', '2026-06-13T20:00:00Z', '2026-06-14T04:00:00Z', '2026-06-14T20:00:00Z']) await at(iso);
    const code = rig.doorCodes.currentFor(key.id)?.code ?? '';
    expect(code).toMatch(/^\d{6}$/);
    expect(rig.logger.lines.every((line) => !line.message.includes(code))).toBe(true);
  });
});

describe('across the DST change, in the lock’s zone', () => {
  it('a window that spans the spring-forward night ends at its wall-clock end in summer time', async () => {
    // Saturday 28 March 2026, 12:00 CET; the clocks go 02:00 → 03:00 on Sunday the 29th.
    rig = newRig('2026-03-28T11:00:00Z');
    rig.sync.start();
    const key = giveKey({ schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    await at('2026-03-28T21:00:00Z');
    // 06:00 CEST is 04:00Z: the night is an hour shorter.
    expect(onLock(key.id)?.window.allowedUntil).toBe(Date.parse('2026-03-29T04:00:00Z'));
    await at('2026-03-29T04:00:00Z');
    expect(onLock(key.id)).toBeUndefined();
  });

  it('a window that spans the fall-back night ends at its wall-clock end in winter time', async () => {
    // Saturday 24 October 2026, 12:00 CEST; the clocks go 03:00 → 02:00 on Sunday the 25th.
    rig = newRig('2026-10-24T10:00:00Z');
    rig.sync.start();
    const key = giveKey({ schedule_start: '0 22 * * * *', schedule_end: '0 6 * * * *' });
    await at('2026-10-24T20:00:00Z');
    // 06:00 CET is 05:00Z: the night is an hour longer.
    expect(onLock(key.id)?.window.allowedUntil).toBe(Date.parse('2026-10-25T05:00:00Z'));
    await at('2026-10-25T04:30:00Z');
    expect(onLock(key.id)).toBeDefined();
    await at('2026-10-25T05:00:00Z');
    expect(onLock(key.id)).toBeUndefined();
  });
});
