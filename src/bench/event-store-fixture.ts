import Database from '../store/sqlite-driver.js';
import { join } from 'node:path';
import { DATABASE_FILE, ServiceRoot } from '../service-root.js';
import { newEventId } from '../events/event-id.js';
import { silentLogger } from '../logger.js';
import { EventRepository } from '../store/event-repository.js';

/** A data folder holding the demo household and a long history on one of its locks. */
export interface EventStoreFixture {
  /** The lock with the history: the demo's Front Door (our profile, gateway connection), so live taps land on it. */
  lockId: string;
  ownerId: string;
  /** The owner's eKey on that lock: the credential of every seeded tap, and of live taps. */
  ekeyId: string;
  /** Ids of stored events chosen uniformly at random: each one an `after` cursor of an older page. */
  cursors: string[];
  /** Events stored on the lock. */
  events: number;
}

/** Seeded events are 30 s apart, ending a day before now (so live taps are newer). */
const SPACING_MS = 30_000;
const BATCH = 100_000;

/**
 * Builds the store the `events-page` service opens: the demo household (seeded through the real
 * composition root, exactly as `ekey-locks demo` does on first start), then `count` events on the
 * Front Door — taps by the owner's eKey, alternately unlock and lock, and every tenth a battery
 * report — and the lock's activity high-water mark set to the last tap's sequence, so the
 * simulated lock continues its numbering and the gateway reads nothing back. All of this happens
 * before the service starts (it sees it when it opens the file); the load is a setup step with
 * journaling and fsync off, the file switched back to WAL afterwards. The counters are rebuilt
 * once at the end, so `count` is right.
 */
export async function buildEventStore(dataDir: string, count: number, cursorCount: number, log: (message: string) => void): Promise<EventStoreFixture> {
  const began = Date.now();
  const service = await ServiceRoot.open({ config: { demo: true }, dataDir, logger: silentLogger, demo: true });
  let lockId: string;
  let ownerId: string;
  let ownerName: string;
  let ekeyId: string;
  try {
    const household = service.demo?.household;
    // Front Door: the demo's gateway lock of our profile (docs/design.md §6).
    const lock = household?.locks.find((entry) => entry.gateway && entry.name === 'Front Door');
    const owner = household?.users[0];
    const key = lock && owner ? service.repositories.ekeys.findLive(owner.id, lock.id) : undefined;
    if (!lock || !owner || !key) throw new Error('the demo household has no gateway lock of our profile with an owner key');
    lockId = lock.id;
    ownerId = owner.id;
    ownerName = owner.name;
    ekeyId = key.id;
  } finally {
    await service.close();
  }

  const db = new Database(join(dataDir, DATABASE_FILE));
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    const insert = db.prepare(
      `INSERT INTO lock_events (id, lock_id, type, performer_id, performer_name, occurred_at, value, source, ekey_id,
         command_id, lock_sequence, flagged, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, 0, ?)`,
    );
    // Distinct random positions in the history, for the cursors.
    const wanted = new Set<number>();
    while (wanted.size < Math.min(cursorCount, count)) wanted.add(Math.floor(Math.random() * count));
    const cursors: string[] = [];
    const start = Date.now() - 86_400_000 - count * SPACING_MS;
    let sequence = 0;
    for (let offset = 0; offset < count; offset += BATCH) {
      db.transaction(() => {
        for (let index = offset; index < Math.min(count, offset + BATCH); index += 1) {
          const at = start + index * SPACING_MS;
          const id = newEventId(at);
          if (wanted.has(index)) cursors.push(id);
          if (index % 10 === 9) {
            insert.run(id, lockId, 'battery', null, null, at, 1 - (index % 100) / 200, 'battery', null, null, at);
          } else {
            sequence += 1;
            insert.run(id, lockId, sequence % 2 === 1 ? 'unlock' : 'lock', ownerId, ownerName, at, null, 'tap', ekeyId, sequence, at);
          }
        }
      })();
    }
    // Odd sequences unlock, even ones lock: the bolt is where the last tap left it.
    db.prepare('UPDATE locks SET last_activity_sequence = ?, bolt_state = ? WHERE id = ?').run(sequence, sequence % 2 === 0 ? 'locked' : 'unlocked', lockId);
    new EventRepository(db).rebuildCounts();
    db.pragma('journal_mode = WAL');
    log(`events-page: stored ${count} events in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    // Shuffled, so consecutive requests do not walk the history in order.
    for (let index = cursors.length - 1; index > 0; index -= 1) {
      const other = Math.floor(Math.random() * (index + 1));
      const swap = cursors[index] ?? '';
      cursors[index] = cursors[other] ?? '';
      cursors[other] = swap;
    }
    return { lockId, ownerId, ekeyId, cursors, events: count };
  } finally {
    db.close();
  }
}
