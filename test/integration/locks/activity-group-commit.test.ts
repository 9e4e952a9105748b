import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import Database from '../../../src/store/sqlite-driver.js';
import type { SqliteDatabase } from '../../../src/store/database.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATABASE_FILE, ServiceRoot } from '../../../src/service-root.js';
import type { LockRuntimeChange } from '../../../src/locks/lock-runtime.js';
import { RecordingLogger } from '../../support/recording-logger.js';

/*
 * Group commit in the production activity path (src/locks/group-commit.ts), through the
 * composition root: records that several locks report in the same turn are stored in one
 * transaction, and each is acknowledged — the runtime's `activity` change (HomeKit, the demo
 * control), the live-stream hub — only once it is durable. Checked from a second SQLite
 * connection, which sees committed rows only.
 */

const OWNER_EMAIL = 'owner@group-commit.example.com';
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('lock activity: group commit in the runtime', () => {
  let dir: string;
  let service: ServiceRoot;
  let logger: RecordingLogger;
  let locks: { id: string; keyId: string }[];
  let closed: boolean;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ekey-activity-commit-'));
    logger = new RecordingLogger();
    service = await ServiceRoot.open({
      // The test plays the locks' gateway: the transport is never used (the subsystem is not started).
      config: {
        bluetooth: { transport: 'simulator' },
        locks: [1, 2, 3].map((n) => ({ name: `Lock ${n}`, address: `D0:E1:C0:00:00:0${n}`, key: randomBytes(32).toString('hex'), owner_email: OWNER_EMAIL, gateway: true })),
      },
      dataDir: dir,
      logger,
      demo: false,
    });
    closed = false;
    const owner = service.repositories.users.findByEmail(OWNER_EMAIL);
    if (!owner) throw new Error('owner not created');
    locks = service.repositories.locks.list().map((lock) => {
      const key = service.repositories.ekeys.findLive(owner.id, lock.id);
      if (!key) throw new Error('no owner key');
      return { id: lock.id, keyId: key.id };
    });
  });

  afterEach(async () => {
    if (!closed) await service.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const emitTap = (lock: { id: string; keyId: string }, sequence: number): void => {
    service.lockSubsystem.runtime.gateway.emit('activity', {
      lockId: lock.id,
      record: { sequence, action: 'unlock', source: 'tap', credential: lock.keyId, timestamp: Date.now() },
      backlog: false,
    });
  };

  const openReader = (): SqliteDatabase => new Database(join(dir, DATABASE_FILE), { readonly: true });

  it('stores the records of several locks from one turn together and acknowledges each after the commit', async () => {
    const reader = openReader();
    try {
      const storedEvents = reader.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM lock_events');
      const sequences = reader.prepare<[], { id: string; seq: number }>('SELECT id, last_activity_sequence AS seq FROM locks');
      const acknowledged: { lockId: string; sequence: number; eventId: string | null; eventsVisible: number; sequencesVisible: number }[] = [];
      service.lockSubsystem.runtime.on('change', (change: LockRuntimeChange) => {
        if (change.kind !== 'activity') return;
        acknowledged.push({
          lockId: change.lockId,
          sequence: change.record.sequence,
          eventId: change.event?.id ?? null,
          eventsVisible: storedEvents.get()?.n ?? 0,
          sequencesVisible: sequences.all().filter((row) => row.seq === 1).length,
        });
      });
      const streamed: string[] = [];
      for (const lock of locks) service.events.hub.subscribe(lock.id, (event) => streamed.push(event.id));

      for (const lock of locks) emitTap(lock, 1);
      // Not durable yet, so not acknowledged yet.
      expect(acknowledged).toEqual([]);
      await nextTurn();
      expect(acknowledged.map((entry) => entry.lockId)).toEqual(locks.map((lock) => lock.id));
      expect(acknowledged.every((entry) => entry.eventId !== null && entry.sequence === 1)).toBe(true);
      // One transaction: when the first record was acknowledged, all three events and all three
      // high-water marks were already committed (one transaction per record would show 1 and 1).
      expect(acknowledged[0]).toMatchObject({ eventsVisible: 3, sequencesVisible: 3 });
      // The live streams get the committed events, once each.
      await nextTurn();
      expect(streamed.sort()).toEqual(acknowledged.map((entry) => entry.eventId).sort());
    } finally {
      reader.close();
    }
  });

  it('keeps each lock in order across turns, and a record delivered twice is stored once', async () => {
    const seen: string[] = [];
    service.lockSubsystem.runtime.on('change', (change: LockRuntimeChange) => {
      if (change.kind === 'activity') seen.push(`${change.lockId}#${change.record.sequence}:${change.event === null ? 'none' : 'event'}`);
    });
    const [a, b] = locks;
    if (!a || !b) throw new Error('locks missing');
    emitTap(a, 1);
    emitTap(a, 2);
    emitTap(b, 1);
    await nextTurn();
    emitTap(a, 3);
    // A read-back of the same record (e.g. after a reconnect) records nothing new.
    emitTap(a, 2);
    await nextTurn();
    expect(seen).toEqual([`${a.id}#1:event`, `${a.id}#2:event`, `${b.id}#1:event`, `${a.id}#3:event`, `${a.id}#2:none`]);
    const history = service.events.repository.history(a.id, 10).map((event) => event.lockSequence);
    expect(history).toEqual([1, 2, 3]);
  });

  it('a record that cannot be stored costs only itself: the rest of its batch is stored and acknowledged', async () => {
    const acknowledged: string[] = [];
    service.lockSubsystem.runtime.on('change', (change: LockRuntimeChange) => {
      if (change.kind === 'activity') acknowledged.push(change.lockId);
    });
    const [a, b] = locks;
    if (!a || !b) throw new Error('locks missing');
    const unknownLock = { id: randomUUID(), keyId: randomUUID() };
    emitTap(a, 1);
    emitTap(unknownLock, 1);
    emitTap(b, 1);
    await nextTurn();
    expect(acknowledged).toEqual([a.id, b.id]);
    expect(service.events.repository.totalsByLock().map((row) => row.lockId).sort()).toEqual([a.id, b.id].sort());
    const errors = logger.lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain(unknownLock.id);
  });

  it('closing the service commits the records still waiting', async () => {
    for (const lock of locks) emitTap(lock, 1);
    await service.close();
    closed = true;
    const reader = openReader();
    try {
      expect(reader.prepare('SELECT COUNT(*) AS n FROM lock_events').get()).toEqual({ n: 3 });
      expect(reader.prepare('SELECT last_activity_sequence AS seq FROM locks ORDER BY id').all()).toEqual([{ seq: 1 }, { seq: 1 }, { seq: 1 }]);
    } finally {
      reader.close();
    }
  });
});
