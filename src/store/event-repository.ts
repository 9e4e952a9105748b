import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';
import type { LockEventDetail, LockEventType } from '../domain/lock-event-type.js';
import { EVENT_TYPES } from '../domain/event-paging.js';

/**
 * Where a stored event came from: a tap on the lock, a completed remote command, a battery report,
 * an Opener's ring, a code refused at the keypad, the service itself (an Opener mode it switched off).
 */
export type EventSource = 'tap' | 'command' | 'battery' | 'ring' | 'keypad' | 'service';

/** What a page, a stream and the API need of an event. `seq` is the keyset position; `id` the public UUID. */
export interface EventSummary {
  seq: number;
  id: string;
  lockId: string;
  type: LockEventType;
  performerId: string | null;
  /** The performer's current name (their stored name when recorded, if the user is gone). */
  performerName: string | null;
  occurredAt: number;
  value: number | null;
  /** `unlatched`, `opened`, `mode` (docs/design.md §4d); null when the event has none. */
  detail: LockEventDetail | null;
}

/** A lock event as stored: the summary plus where it came from. */
export interface StoredEvent extends EventSummary {
  source: EventSource;
  ekeyId: string | null;
  commandId: string | null;
  lockSequence: number | null;
  flagged: boolean;
  recordedAt: number;
}

/** What the recorder inserts. */
export type NewEvent = Omit<StoredEvent, 'seq'>;

/** Which events a query may return: a lock, a set of types, optionally one performer's only. */
export interface EventFilter {
  lockId: string;
  /** Non-empty, without duplicates. */
  types: readonly LockEventType[];
  /** Restrict to this performer (the restricted view of a holder who is not owner or admin). */
  performerId?: string;
}

interface EventRow {
  seq: number;
  id: string;
  lock_id: string;
  type: LockEventType;
  performer_id: string | null;
  performer_name: string | null;
  occurred_at: number;
  value: number | null;
  detail: string | null;
  source: EventSource;
  ekey_id: string | null;
  command_id: string | null;
  lock_sequence: number | null;
  flagged: number;
  recorded_at: number;
}

const toStored = (row: EventRow): StoredEvent => ({
  seq: row.seq,
  id: row.id,
  lockId: row.lock_id,
  type: row.type,
  performerId: row.performer_id,
  performerName: row.performer_name,
  occurredAt: row.occurred_at,
  value: row.value,
  detail: parseDetail(row.detail),
  source: row.source,
  ekeyId: row.ekey_id,
  commandId: row.command_id,
  lockSequence: row.lock_sequence,
  flagged: row.flagged === 1,
  recordedAt: row.recorded_at,
});

/**
 * Every column of an event, the performer's current name first (their stored name when the user is
 * gone). The name is a scalar subquery, not a join: the SQLite that better-sqlite3 13 ships
 * (3.54.1) prepares a statement with a join and a bound parameter again at every run — ~50 µs
 * on our schema, where the subquery costs ~1 µs (docs/performance.md "command-roundtrip-nuki";
 * test/integration/commands/command-path-statements.test.ts keeps joins off the command path).
 */
const SELECT_COLUMNS = `e.seq, e.id, e.lock_id, e.type, e.performer_id,
  COALESCE((SELECT u.name FROM users u WHERE u.id = e.performer_id), e.performer_name) AS performer_name,
  e.occurred_at, e.value, e.detail, e.source, e.ekey_id, e.command_id, e.lock_sequence, e.flagged, e.recorded_at`;

type Direction = 'older' | 'newer';

/** How many event types exist (lock, unlock, battery, ring). */
const ALL_TYPES = EVENT_TYPES.length;

/** A page row in raw (array) mode: seq, id, type, performer_id, performer name, occurred_at, value, detail. */
type SummaryRow = [number, string, LockEventType, string | null, string | null, number, number | null, string | null];

/** The stored detail column: JSON of the fields set, or null. */
function parseDetail(text: string | null): LockEventDetail | null {
  return text === null ? null : (JSON.parse(text) as LockEventDetail);
}

/** Only the fields that are set, as JSON; null when none is. */
function detailColumn(detail: LockEventDetail | null): string | null {
  if (detail === null) return null;
  const kept: LockEventDetail = {};
  if (detail.unlatched === true) kept.unlatched = true;
  if (detail.opened === true) kept.opened = true;
  if (detail.mode !== undefined) kept.mode = detail.mode;
  if (detail.via !== undefined) kept.via = detail.via;
  if (detail.booking !== undefined) kept.booking = { uid: detail.booking.uid, summary: detail.booking.summary };
  return Object.keys(kept).length === 0 ? null : JSON.stringify(kept);
}

/**
 * The lock_events table and its counters. Every page query is a keyset range on `seq` over one of
 * the (lock, [performer,] type, seq) indexes — one index range per requested type, merged — so the
 * cost of a page depends on its size, never on its depth. Counts come from `lock_event_counts`,
 * kept exact by this repository in the same transaction as every insert and delete.
 */
export class EventRepository {
  private readonly insertStatement;
  private readonly byIdStatement;
  private readonly bySequenceStatement;
  private readonly existsStatement;
  private readonly byCommandStatement;
  private readonly lastBatteryStatement;
  private readonly countStatements;
  private readonly userNameStatement;
  private readonly cursorStatement;
  private readonly oldestStatement;
  private readonly deleteStatement;
  private readonly locksWithEventsStatement;
  private readonly maxSeqStatement;
  private readonly addCountStatement;
  private readonly deletedCountsStatement;
  private readonly pageStatements = new Map<string, Statement<(string | number)[], SummaryRow>>();
  private readonly historyStatement;
  private writes = 0;

  constructor(private readonly db: SqliteDatabase) {
    this.insertStatement = db.prepare(
      `INSERT INTO lock_events (id, lock_id, type, performer_id, performer_name, occurred_at, value, detail, source, ekey_id,
         command_id, lock_sequence, flagged, recorded_at)
       VALUES (@id, @lock_id, @type, @performer_id, @performer_name, @occurred_at, @value, @detail, @source, @ekey_id,
         @command_id, @lock_sequence, @flagged, @recorded_at)`,
    );
    this.byIdStatement = db.prepare<[string], EventRow>(
      `SELECT ${SELECT_COLUMNS} FROM lock_events e WHERE e.id = ?`,
    );
    this.existsStatement = db.prepare<[string], number>('SELECT 1 FROM lock_events WHERE id = ?').pluck(true);
    this.bySequenceStatement = db.prepare<[string, number], { seq: number }>(
      'SELECT seq FROM lock_events WHERE lock_id = ? AND lock_sequence = ?',
    );
    this.byCommandStatement = db.prepare<[string], EventRow>(
      `SELECT ${SELECT_COLUMNS} FROM lock_events e WHERE e.command_id = ?`,
    );
    this.lastBatteryStatement = db.prepare<[string], { value: number | null }>(
      "SELECT value FROM lock_events WHERE lock_id = ? AND type = 'battery' ORDER BY seq DESC LIMIT 1",
    );
    this.countStatements = EVENT_TYPES.map((_, index) => index + 1).map((types) =>
      db
        .prepare<string[], number | null>(
          `SELECT SUM(n) FROM lock_event_counts WHERE lock_id = ? AND performer_id = ? AND type IN (${Array.from({ length: types }, () => '?').join(', ')})`,
        )
        .pluck(true),
    );
    this.userNameStatement = db.prepare<[string], string>('SELECT name FROM users WHERE id = ?').pluck(true);
    this.cursorStatement = db.prepare<[string], { seq: number; lock_id: string; type: LockEventType; performer_id: string | null }>(
      'SELECT seq, lock_id, type, performer_id FROM lock_events WHERE id = ?',
    );
    this.oldestStatement = db.prepare<[number], { seq: number; recorded_at: number }>(
      'SELECT seq, recorded_at FROM lock_events ORDER BY seq ASC LIMIT ?',
    );
    this.deleteStatement = db.prepare<[string]>('DELETE FROM lock_events WHERE seq IN (SELECT value FROM json_each(?))');
    this.locksWithEventsStatement = db.prepare<[], { lock_id: string; n: number }>(
      "SELECT lock_id, SUM(n) AS n FROM lock_event_counts WHERE performer_id = '' GROUP BY lock_id",
    );
    this.historyStatement = db.prepare<[string, number], EventRow>(
      `SELECT ${SELECT_COLUMNS} FROM lock_events e WHERE e.lock_id = ? ORDER BY e.seq LIMIT ?`,
    );
    this.maxSeqStatement = db.prepare<[], { seq: number | null }>('SELECT MAX(seq) AS seq FROM lock_events');
    this.addCountStatement = db.prepare<[string, string, string, number]>(
      `INSERT INTO lock_event_counts (lock_id, type, performer_id, n) VALUES (?, ?, ?, ?)
       ON CONFLICT (lock_id, type, performer_id) DO UPDATE SET n = n + excluded.n`,
    );
    this.deletedCountsStatement = db.prepare<[string], { lock_id: string; type: LockEventType; performer_id: string | null; n: number }>(
      'SELECT lock_id, type, performer_id, COUNT(*) AS n FROM lock_events WHERE seq IN (SELECT value FROM json_each(?)) GROUP BY lock_id, type, performer_id',
    );
  }

  /**
   * Inserts an event; returns its `seq`. Throws on a duplicate (lock, lock_sequence) or command id.
   * The caller adds the inserted events to the counters ({@link countInserted}) in the same
   * transaction — once per batch, which is what keeps ingest fast.
   */
  insert(event: NewEvent): number {
    this.writes += 1;
    const result = this.insertStatement.run({
      id: event.id,
      lock_id: event.lockId,
      type: event.type,
      performer_id: event.performerId,
      performer_name: event.performerName,
      occurred_at: event.occurredAt,
      value: event.value,
      detail: detailColumn(event.detail),
      source: event.source,
      ekey_id: event.ekeyId,
      command_id: event.commandId,
      lock_sequence: event.lockSequence,
      flagged: event.flagged ? 1 : 0,
      recorded_at: event.recordedAt,
    });
    return Number(result.lastInsertRowid);
  }

  /**
   * Grows with every insert, delete and counter rebuild through this repository (before the
   * write), so a cache of pages can tell it is stale. Commits by other processes are not counted:
   * ReadCache's data_version check covers those.
   */
  get writeVersion(): number {
    return this.writes;
  }

  findById(id: string): StoredEvent | undefined {
    const row = this.byIdStatement.get(id.toLowerCase());
    return row ? toStored(row) : undefined;
  }

  /** Whether an event with this id is stored (an index probe; {@link findById} also reads the row). */
  exists(id: string): boolean {
    return this.existsStatement.get(id.toLowerCase()) !== undefined;
  }

  /** Whether the lock's activity record `sequence` is already stored (dedupe of read-backs). */
  hasLockSequence(lockId: string, sequence: number): boolean {
    return this.bySequenceStatement.get(lockId, sequence) !== undefined;
  }

  findByCommand(commandId: string): StoredEvent | undefined {
    const row = this.byCommandStatement.get(commandId);
    return row ? toStored(row) : undefined;
  }

  /** The value of the lock's most recent battery event, or undefined when there is none. */
  lastBatteryLevel(lockId: string): number | undefined {
    const row = this.lastBatteryStatement.get(lockId);
    return row?.value ?? undefined;
  }

  /** How many events match the filter: a sum over at most one counter row per type, never a scan. */
  count(filter: EventFilter): number {
    const statement = this.countStatements[filter.types.length - 1];
    if (!statement) return 0;
    return statement.get(filter.lockId, filter.performerId ?? '', ...filter.types) ?? 0;
  }

  /** What a cursor needs of an event: its position, lock, type and performer (or undefined). */
  findCursor(id: string): { seq: number; lockId: string; type: LockEventType; performerId: string | null } | undefined {
    const row = this.cursorStatement.get(id.toLowerCase());
    return row ? { seq: row.seq, lockId: row.lock_id, type: row.type, performerId: row.performer_id } : undefined;
  }

  /**
   * Up to `limit` events matching the filter on one side of `fromSeq` (exclusive; null = from the
   * newest end for `older`, from the oldest end for `newer`). `older` returns newest first (the
   * list order); `newer` returns oldest first (nearest the cursor first), so callers take a prefix.
   */
  page(filter: EventFilter, direction: Direction, fromSeq: number | null, limit: number): EventSummary[] {
    if (filter.types.length === 0) return [];
    // Every type of the lock, unrestricted (the common request): one range over (lock_id, seq).
    const wholeLock = filter.performerId === undefined && filter.types.length === ALL_TYPES;
    const branches: (string | null)[] = wholeLock ? [null] : [...filter.types];
    const statement = this.pageStatement(wholeLock ? 0 : branches.length, filter.performerId !== undefined, direction, fromSeq !== null);
    const params: (string | number)[] = [];
    for (const type of branches) {
      params.push(filter.lockId);
      if (filter.performerId !== undefined) params.push(filter.performerId);
      if (type !== null) params.push(type);
      if (fromSeq !== null) params.push(fromSeq);
      params.push(limit);
    }
    if (branches.length > 1) params.push(limit);
    // A page has few distinct performers: one name look-up each (the current name; the stored
    // one if the user is gone) is cheaper than joining users on every row.
    const names = new Map<string, string | null>();
    return statement.all(...params).map(([seq, id, type, performerId, storedName, occurredAt, value, detail]) => {
      let performerName = storedName;
      if (performerId !== null) {
        let current = names.get(performerId);
        if (current === undefined) {
          current = this.userNameStatement.get(performerId) ?? null;
          names.set(performerId, current);
        }
        performerName = current ?? storedName;
      }
      return { seq, id, lockId: filter.lockId, type, performerId, performerName, occurredAt, value, detail: detail === null ? null : parseDetail(detail) };
    });
  }

  /** Every stored field of a lock's events, oldest first, up to `limit` (audits and tests; not a request path). */
  history(lockId: string, limit: number): StoredEvent[] {
    return this.historyStatement.all(lockId, limit).map(toStored);
  }

  /**
   * One statement per query shape. Each type gets its own index range with its own LIMIT (an
   * `IN (...)` over the middle index column would make SQLite sort the whole range instead);
   * `typeCount` 0 means no type condition (the whole lock, one range over (lock_id, seq)).
   */
  private pageStatement(typeCount: number, byPerformer: boolean, direction: Direction, hasCursor: boolean): Statement<(string | number)[], SummaryRow> {
    const key = `${typeCount}:${byPerformer}:${direction}:${hasCursor}`;
    const cached = this.pageStatements.get(key);
    if (cached) return cached;
    const order = direction === 'older' ? 'DESC' : 'ASC';
    const comparison = direction === 'older' ? '<' : '>';
    const branch = `SELECT * FROM (SELECT seq FROM lock_events WHERE lock_id = ?${byPerformer ? ' AND performer_id = ?' : ''}
      ${typeCount > 0 ? 'AND type = ?' : ''}${hasCursor ? ` AND seq ${comparison} ?` : ''} ORDER BY seq ${order} LIMIT ?)`;
    // No users join here: names are looked up once per distinct performer of the page (page()).
    const columns = 'e.seq, e.id, e.type, e.performer_id, e.performer_name, e.occurred_at, e.value, e.detail';
    if (typeCount <= 1) {
      // One index range: read the rows straight off it, in order, no temporary sort.
      const sql = `SELECT ${columns} FROM lock_events e
        WHERE e.lock_id = ?${byPerformer ? ' AND e.performer_id = ?' : ''}${typeCount === 1 ? ' AND e.type = ?' : ''}${hasCursor ? ` AND e.seq ${comparison} ?` : ''}
        ORDER BY e.seq ${order} LIMIT ?`;
      const statement = this.db.prepare<(string | number)[], SummaryRow>(sql).raw(true);
      this.pageStatements.set(key, statement);
      return statement;
    }
    const union = Array.from({ length: typeCount }, () => branch).join(' UNION ALL ');
    // Only the columns a LockEvent needs, as arrays: row objects with every column cost 4x more.
    const sql = `SELECT ${columns}
      FROM (SELECT seq FROM (${union}) ORDER BY seq ${order} LIMIT ?) picked
      JOIN lock_events e ON e.seq = picked.seq ORDER BY e.seq ${order}`;
    const statement = this.db.prepare<(string | number)[], SummaryRow>(sql).raw(true);
    this.pageStatements.set(key, statement);
    return statement;
  }

  /** The `limit` oldest events of a lock (retention by count), oldest first. */
  oldestSeqs(lockId: string, limit: number): number[] {
    return this.page({ lockId, types: EVENT_TYPES }, 'newer', null, limit).map((event) => event.seq);
  }

  /**
   * Up to `limit` of the oldest events (any lock) recorded before `cutoffMs` (retention by age).
   * Walks the primary key from the oldest row and stops at the first younger one: `seq` and
   * `recorded_at` grow together, so this never scans past the batch.
   */
  seqsRecordedBefore(cutoffMs: number, limit: number): number[] {
    const seqs: number[] = [];
    for (const row of this.oldestStatement.all(limit)) {
      if (row.recorded_at >= cutoffMs) break;
      seqs.push(row.seq);
    }
    return seqs;
  }

  /** Adds inserted events to the counters: one upsert per distinct (lock, type, performer). Call inside the insert's transaction. */
  countInserted(events: readonly Pick<StoredEvent, 'lockId' | 'type' | 'performerId'>[]): void {
    const deltas = new Map<string, { lockId: string; type: LockEventType; performerId: string; n: number }>();
    const add = (lockId: string, type: LockEventType, performerId: string): void => {
      const key = `${lockId}\u0000${type}\u0000${performerId}`;
      const entry = deltas.get(key);
      if (entry) entry.n += 1;
      else deltas.set(key, { lockId, type, performerId, n: 1 });
    };
    for (const event of events) {
      add(event.lockId, event.type, '');
      if (event.performerId !== null) add(event.lockId, event.type, event.performerId);
    }
    for (const delta of deltas.values()) this.addCountStatement.run(delta.lockId, delta.type, delta.performerId, delta.n);
  }

  /** Deletes events by seq and takes them off the counters. Call inside a transaction. Returns how many went. */
  deleteSeqs(seqs: readonly number[]): number {
    if (seqs.length === 0) return 0;
    this.writes += 1;
    const list = JSON.stringify(seqs);
    for (const group of this.deletedCountsStatement.all(list)) {
      this.addCountStatement.run(group.lock_id, group.type, '', -group.n);
      if (group.performer_id !== null) this.addCountStatement.run(group.lock_id, group.type, group.performer_id, -group.n);
    }
    return this.deleteStatement.run(list).changes;
  }

  /**
   * Recomputes every counter from the events (a full scan): after a bulk load that bypassed
   * {@link insert} (the benchmark's seeding) or to repair a store. Never on a request path.
   */
  rebuildCounts(): void {
    this.writes += 1;
    this.db.exec(`
      DELETE FROM lock_event_counts;
      INSERT INTO lock_event_counts (lock_id, type, performer_id, n)
        SELECT lock_id, type, '', COUNT(*) FROM lock_events GROUP BY lock_id, type;
      INSERT INTO lock_event_counts (lock_id, type, performer_id, n)
        SELECT lock_id, type, performer_id, COUNT(*) FROM lock_events WHERE performer_id IS NOT NULL GROUP BY lock_id, type, performer_id;
    `);
  }

  /** Every lock with its total event count (from the counters). */
  totalsByLock(): { lockId: string; total: number }[] {
    return this.locksWithEventsStatement.all().map((row) => ({ lockId: row.lock_id, total: row.n }));
  }

  /** The highest seq ever handed out that still exists (0 when empty). */
  maxSeq(): number {
    return this.maxSeqStatement.get()?.seq ?? 0;
  }
}
