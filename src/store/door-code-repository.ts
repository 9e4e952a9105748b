import type { SqliteDatabase } from './database.js';
import type { DoorCodeEnforcer, KeypadWindow } from '../domain/door-code-window.js';

/** Where a door code stands (docs/design.md §4c). */
export type DoorCodeState = 'waiting' | 'setting' | 'set' | 'failed' | 'removing' | 'removed';

/** What the lock confirmed holding for a code. */
export interface WrittenDoorCode {
  enabled: boolean;
  window: KeypadWindow;
}

/** One code an eKey was given. `code` is secret: only its holder and the lock's owners and admins see it, never a log. */
export interface DoorCodeRecord {
  id: number;
  ekeyId: string;
  lockId: string;
  /** Six digits; null once removed. */
  code: string | null;
  state: DoorCodeState;
  enforcedBy: DoorCodeEnforcer;
  failureReason: string | null;
  /** The code's id on the lock, once the lock named it. */
  lockCodeId: number | null;
  /** What the lock confirmed holding; null while it holds nothing of ours. */
  written: WrittenDoorCode | null;
  createdAt: number;
  updatedAt: number;
}

interface DoorCodeRow {
  id: number;
  ekey_id: string;
  lock_id: string;
  code: string | null;
  state: DoorCodeState;
  enforced_by: DoorCodeEnforcer;
  failure_reason: string | null;
  lock_code_id: number | null;
  written: string | null;
  created_at: number;
  updated_at: number;
}

const toRecord = (row: DoorCodeRow): DoorCodeRecord => ({
  id: row.id,
  ekeyId: row.ekey_id,
  lockId: row.lock_id,
  code: row.code,
  state: row.state,
  enforcedBy: row.enforced_by,
  failureReason: row.failure_reason,
  lockCodeId: row.lock_code_id,
  written: row.written === null ? null : (JSON.parse(row.written) as WrittenDoorCode),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The states in which a code may be on the lock, or is on its way there or off it. */
const OPEN_STATES = "('setting', 'set', 'failed', 'removing')";

/**
 * The door_codes table (migration 9): one row per code an eKey was given; the newest row of a key
 * is its `door_code`. Rows are never deleted: a removed code keeps its row (code null).
 */
export class DoorCodeRepository {
  private readonly currentStatement;
  private readonly byIdStatement;
  private readonly openByLockStatement;
  private readonly openLocksStatement;
  private readonly waitingByLockStatement;
  private readonly codesOnLockStatement;
  private readonly byLockCodeIdStatement;
  private readonly insertStatement;
  private readonly updateStatement;

  constructor(db: SqliteDatabase) {
    this.currentStatement = db.prepare<[string], DoorCodeRow>('SELECT * FROM door_codes WHERE ekey_id = ? ORDER BY id DESC LIMIT 1');
    this.byIdStatement = db.prepare<[number], DoorCodeRow>('SELECT * FROM door_codes WHERE id = ?');
    this.openByLockStatement = db.prepare<[string], DoorCodeRow>(`SELECT * FROM door_codes WHERE lock_id = ? AND state IN ${OPEN_STATES} ORDER BY id`);
    this.openLocksStatement = db.prepare<[], { lock_id: string }>(`SELECT DISTINCT lock_id FROM door_codes WHERE state IN ${OPEN_STATES} OR state = 'waiting'`);
    this.waitingByLockStatement = db.prepare<[string], DoorCodeRow>(`SELECT * FROM door_codes WHERE lock_id = ? AND state = 'waiting' ORDER BY id`);
    this.codesOnLockStatement = db.prepare<[string], { code: string }>('SELECT code FROM door_codes WHERE lock_id = ? AND code IS NOT NULL');
    this.byLockCodeIdStatement = db.prepare<[string, number], DoorCodeRow>(
      'SELECT * FROM door_codes WHERE lock_id = ? AND lock_code_id = ? ORDER BY id DESC LIMIT 1',
    );
    this.insertStatement = db.prepare(
      `INSERT INTO door_codes (ekey_id, lock_id, code, state, enforced_by, failure_reason, lock_code_id, written, created_at, updated_at)
       VALUES (@ekey_id, @lock_id, @code, @state, @enforced_by, @failure_reason, @lock_code_id, @written, @created_at, @updated_at)`,
    );
    this.updateStatement = db.prepare(
      `UPDATE door_codes SET code = @code, state = @state, enforced_by = @enforced_by, failure_reason = @failure_reason,
         lock_code_id = @lock_code_id, written = @written, updated_at = @updated_at WHERE id = @id`,
    );
  }

  /** The newest code row of an eKey (its `door_code`), or undefined when it never had one. */
  currentFor(ekeyId: string): DoorCodeRecord | undefined {
    const row = this.currentStatement.get(ekeyId.toLowerCase());
    return row ? toRecord(row) : undefined;
  }

  findById(id: number): DoorCodeRecord | undefined {
    const row = this.byIdStatement.get(id);
    return row ? toRecord(row) : undefined;
  }

  /** Rows of a lock whose code may be on the lock or is on its way on or off, oldest first. */
  listOpenByLock(lockId: string): DoorCodeRecord[] {
    return this.openByLockStatement.all(lockId.toLowerCase()).map(toRecord);
  }

  /** Rows of a lock waiting for their key to be accepted. */
  listWaitingByLock(lockId: string): DoorCodeRecord[] {
    return this.waitingByLockStatement.all(lockId.toLowerCase()).map(toRecord);
  }

  /** Locks with any row that is not finished (waiting included). */
  locksWithOpenCodes(): string[] {
    return this.openLocksStatement.all().map((row) => row.lock_id);
  }

  /** Every code of ours on the lock that is not removed (to keep a new one unique). */
  codesOnLock(lockId: string): Set<string> {
    return new Set(this.codesOnLockStatement.all(lockId.toLowerCase()).map((row) => row.code));
  }

  /** The row whose code has this id on the lock (the newest, should the lock reuse ids). */
  findByLockCodeId(lockId: string, lockCodeId: number): DoorCodeRecord | undefined {
    const row = this.byLockCodeIdStatement.get(lockId.toLowerCase(), lockCodeId);
    return row ? toRecord(row) : undefined;
  }

  insert(record: Omit<DoorCodeRecord, 'id'>): DoorCodeRecord {
    const result = this.insertStatement.run(toRow(record));
    return { ...record, id: Number(result.lastInsertRowid) };
  }

  update(record: DoorCodeRecord): void {
    this.updateStatement.run({ ...toRow(record), id: record.id });
  }
}

function toRow(record: Omit<DoorCodeRecord, 'id'>): Omit<DoorCodeRow, 'id'> {
  return {
    ekey_id: record.ekeyId.toLowerCase(),
    lock_id: record.lockId.toLowerCase(),
    code: record.code,
    state: record.state,
    enforced_by: record.enforcedBy,
    failure_reason: record.failureReason,
    lock_code_id: record.lockCodeId,
    written: record.written === null ? null : JSON.stringify(record.written),
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}
