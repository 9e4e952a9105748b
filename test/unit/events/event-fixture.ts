import { openDatabase, type SqliteDatabase } from '../../../src/store/database.js';
import { UserRepository } from '../../../src/store/user-repository.js';
import { LockRepository } from '../../../src/store/lock-repository.js';
import { createEventServices, type EventServices } from '../../../src/events/event-services.js';
import type { LockRole } from '../../../src/events/event-access.js';
import type { RetentionPolicy } from '../../../src/events/event-retention.js';
import type { IntervalTimer, StreamConnection } from '../../../src/events/event-stream-service.js';
import { ManualClock } from '../../support/manual-clock.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { lockRecord } from '../../support/lock-record.js';

export const LOCK = '0b7f4c1e-2f0a-4c56-9a38-4d1f3e2a1b01';
export const OTHER_LOCK = '0b7f4c1e-2f0a-4c56-9a38-4d1f3e2a1b02';
export const OWNER = { id: '11111111-1111-4111-8111-111111111111', name: 'Olivia Owner' };
export const ADMIN = { id: '22222222-2222-4222-8222-222222222222', name: 'Alex Admin' };
export const GUEST = { id: '33333333-3333-4333-8333-333333333333', name: 'Gabe Guest' };
export const STRANGER = { id: '44444444-4444-4444-8444-444444444444', name: 'Sam Stranger' };

/** A key as the fake eKey layer knows it: usable on [from, to). */
export interface FakeKey {
  id: string;
  lock_id: string;
  user_id: string;
  role: LockRole;
  from: number;
  to: number;
}

/** Interval timers the test fires by hand (no waiting for time). */
export class ManualTimers {
  private readonly ticks = new Set<() => void>();
  readonly timer: IntervalTimer = (_ms, tick) => {
    this.ticks.add(tick);
    return () => {
      this.ticks.delete(tick);
    };
  };
  get active(): number {
    return this.ticks.size;
  }
  fire(): void {
    for (const tick of [...this.ticks]) tick();
  }
}

export interface EventFixture {
  db: SqliteDatabase;
  clock: ManualClock;
  logger: RecordingLogger;
  timers: ManualTimers;
  keys: Map<string, FakeKey>;
  /** The users repository the events layer reads names from (and whose writes its cache watches). */
  users: UserRepository;
  events: EventServices;
  /** Gives `user` a key on `lock` usable on [from, to). */
  giveKey(key: FakeKey): void;
  close(): void;
}

export const START = Date.UTC(2026, 0, 15, 12, 0, 0);

/** An in-memory store with one owner, admin, guest and stranger, two locks, and the events layer. */
export function eventFixture(options: { retention?: RetentionPolicy } = {}): EventFixture {
  const db = openDatabase(':memory:');
  const clock = new ManualClock(START);
  const logger = new RecordingLogger();
  const timers = new ManualTimers();
  const users = new UserRepository(db);
  for (const user of [OWNER, ADMIN, GUEST, STRANGER]) {
    users.insert({
      id: user.id,
      email: `${user.name.split(' ')[0]?.toLowerCase() ?? 'x'}@example.com`,
      name: user.name,
      passwordHash: null,
      ekeyQuota: null,
      canSendEkeys: true,
      createdAt: START,
    });
  }
  const locks = new LockRepository(db);
  for (const [id, name] of [
    [LOCK, 'Front Door'],
    [OTHER_LOCK, 'Garden Gate'],
  ] as const) {
    locks.upsert(lockRecord({ id, name, ownerId: OWNER.id, createdAt: START }));
  }
  const keys = new Map<string, FakeKey>();
  const usable = (userId: string, lockId: string, atMs: number): FakeKey | undefined =>
    [...keys.values()].find((key) => key.user_id === userId && key.lock_id === lockId && key.from <= atMs && atMs < key.to);
  const events = createEventServices({
    db,
    clock,
    logger,
    access: {
      roleOn: (userId, lockId, atMs) => usable(userId, lockId, atMs)?.role ?? null,
      usableKeyFor: (userId, lockId, atMs) => usable(userId, lockId, atMs),
    },
    ekeys: { findById: (id) => keys.get(id) },
    users,
    timer: timers.timer,
    heartbeatMs: 15_000,
    ...(options.retention ? { retention: options.retention } : {}),
  });
  const fixture: EventFixture = {
    db,
    clock,
    logger,
    timers,
    keys,
    users,
    events,
    giveKey: (key) => keys.set(key.id, key),
    close: () => {
      events.retention.stop();
      events.streams.closeAll();
      db.close();
    },
  };
  const forever = { from: 0, to: Number.MAX_SAFE_INTEGER };
  fixture.giveKey({ id: 'aaaaaaaa-0000-4000-8000-000000000001', lock_id: LOCK, user_id: OWNER.id, role: 'owner', ...forever });
  fixture.giveKey({ id: 'aaaaaaaa-0000-4000-8000-000000000002', lock_id: LOCK, user_id: ADMIN.id, role: 'admin', ...forever });
  fixture.giveKey({ id: 'aaaaaaaa-0000-4000-8000-000000000003', lock_id: LOCK, user_id: GUEST.id, role: 'guest', from: START - 3_600_000, to: START + 86_400_000 });
  fixture.giveKey({ id: 'aaaaaaaa-0000-4000-8000-000000000004', lock_id: OTHER_LOCK, user_id: STRANGER.id, role: 'owner', ...forever });
  return fixture;
}

export const OWNER_KEY = 'aaaaaaaa-0000-4000-8000-000000000001';
export const ADMIN_KEY = 'aaaaaaaa-0000-4000-8000-000000000002';
export const GUEST_KEY = 'aaaaaaaa-0000-4000-8000-000000000003';
export const STRANGER_KEY = 'aaaaaaaa-0000-4000-8000-000000000004';

/** A connection that keeps what was written and parses the SSE messages out of it. */
export class RecordingConnection implements StreamConnection {
  text = '';
  ended = false;
  pendingBytes = 0;
  write(chunk: string): void {
    this.text += chunk;
  }
  end(): void {
    this.ended = true;
  }
  /** The ids of the SSE messages written so far. */
  get ids(): string[] {
    return [...this.text.matchAll(/^id: (.+)$/gm)].map((match) => match[1] ?? '');
  }
  messages(): { id: string; data: { id: string; type: string; performer?: { id: string } } }[] {
    return this.text
      .split('\n\n')
      .filter((block) => block.startsWith('id: '))
      .map((block) => {
        const [idLine = '', dataLine = ''] = block.split('\n');
        return { id: idLine.slice(4), data: JSON.parse(dataLine.slice(6)) as { id: string; type: string; performer?: { id: string } } };
      });
  }
}
