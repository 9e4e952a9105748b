import type { CommandFailure } from '../domain/lock-vocabulary.js';
import type { SqliteDatabase } from './database.js';

import type { LockCommandType } from '../domain/lock-command-type.js';

/** Command types (spec: LockCommand `type`; docs/design.md §4d adds unlatch and the Opener's modes). */
export type CommandType = LockCommandType;

/** Command statuses (spec: LockCommand `status`). */
export type CommandStatus = 'created' | 'processing' | 'completed' | 'failed';

/** Where a command was requested: the REST API, HomeKit (and Matter) through the lock port, or MQTT (docs/design.md §11). */
export type CommandOrigin = 'api' | 'homekit' | 'mqtt';

/** A command as stored. Times are epoch ms. */
export interface CommandRecord {
  id: string;
  lockId: string;
  type: CommandType;
  status: CommandStatus;
  failureReason: CommandFailure | null;
  requestedBy: string;
  origin: CommandOrigin;
  idempotencyKey: string | null;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
}

interface CommandRow {
  id: string;
  lock_id: string;
  type: CommandType;
  status: CommandStatus;
  failure_reason: CommandFailure | null;
  requested_by: string;
  origin: CommandOrigin;
  idempotency_key: string | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
}

const toRecord = (row: CommandRow): CommandRecord => ({
  id: row.id,
  lockId: row.lock_id,
  type: row.type,
  status: row.status,
  failureReason: row.failure_reason,
  requestedBy: row.requested_by,
  origin: row.origin,
  idempotencyKey: row.idempotency_key,
  createdAt: row.created_at,
  startedAt: row.started_at,
  completedAt: row.completed_at,
});

/** The parts of an eKey that decide whether a command may be sent (read-only view for the command engine). */
export interface CommandKeyRow {
  id: string;
  type: 'owner' | 'admin' | 'anytime' | 'scheduled' | 'guest';
  status: 'pending' | 'accepted' | 'revoked';
  valid_from: number | null;
  valid_to: number | null;
  schedule_start: string | null;
  schedule_end: string | null;
}

/** The commands table. Ids are stored lower case. */
export class CommandRepository {
  private readonly insertStatement;
  private readonly byId;
  private readonly byIdempotencyKey;
  private readonly startStatement;
  private readonly finishStatement;
  private readonly failUnfinishedStatement;
  private readonly liveKeysStatement;
  private readonly keyByIdStatement;

  constructor(db: SqliteDatabase) {
    this.insertStatement = db.prepare(
      `INSERT INTO commands (id, lock_id, type, status, failure_reason, requested_by, origin, idempotency_key,
         created_at, started_at, completed_at)
       VALUES (@id, @lock_id, @type, @status, @failure_reason, @requested_by, @origin, @idempotency_key,
         @created_at, @started_at, @completed_at)`,
    );
    this.byId = db.prepare<[string], CommandRow>('SELECT * FROM commands WHERE id = ?');
    this.byIdempotencyKey = db.prepare<[string, string, number], CommandRow>(
      `SELECT * FROM commands WHERE requested_by = ? AND idempotency_key = ? AND created_at >= ?
       ORDER BY created_at DESC LIMIT 1`,
    );
    this.startStatement = db.prepare<[number, string]>("UPDATE commands SET status = 'processing', started_at = ? WHERE id = ?");
    this.finishStatement = db.prepare<[CommandStatus, CommandFailure | null, number, string]>(
      'UPDATE commands SET status = ?, failure_reason = ?, completed_at = ? WHERE id = ?',
    );
    this.failUnfinishedStatement = db.prepare<[CommandFailure, number]>(
      "UPDATE commands SET status = 'failed', failure_reason = ?, completed_at = ? WHERE status IN ('created', 'processing')",
    );
    this.liveKeysStatement = db.prepare<[string, string], CommandKeyRow>(
      `SELECT id, type, status, valid_from, valid_to, schedule_start, schedule_end FROM ekeys
       WHERE user_id = ? AND lock_id = ? AND status <> 'revoked'`,
    );
    this.keyByIdStatement = db.prepare<[string], CommandKeyRow & { lock_id: string }>(
      'SELECT id, lock_id, type, status, valid_from, valid_to, schedule_start, schedule_end FROM ekeys WHERE id = ?',
    );
  }

  /** An eKey by id (any status) with its lock, for checking a tap credential. */
  keyById(ekeyId: string): (CommandKeyRow & { lock_id: string }) | undefined {
    return this.keyByIdStatement.get(ekeyId.toLowerCase());
  }

  insert(command: CommandRecord): void {
    this.insertStatement.run({
      id: command.id.toLowerCase(),
      lock_id: command.lockId.toLowerCase(),
      type: command.type,
      status: command.status,
      failure_reason: command.failureReason,
      requested_by: command.requestedBy,
      origin: command.origin,
      idempotency_key: command.idempotencyKey,
      created_at: command.createdAt,
      started_at: command.startedAt,
      completed_at: command.completedAt,
    });
  }

  /** Looks a command up by id (case-insensitive). */
  findById(id: string): CommandRecord | undefined {
    const row = this.byId.get(id.toLowerCase());
    return row ? toRecord(row) : undefined;
  }

  /** The newest command of `requestedBy` carrying `key`, created at or after `notBefore`. */
  findByIdempotencyKey(requestedBy: string, key: string, notBefore: number): CommandRecord | undefined {
    const row = this.byIdempotencyKey.get(requestedBy, key, notBefore);
    return row ? toRecord(row) : undefined;
  }

  /** created → processing. */
  markProcessing(id: string, startedAt: number): void {
    this.startStatement.run(startedAt, id);
  }

  /** Any state → a terminal one. */
  finish(id: string, status: 'completed' | 'failed', failureReason: CommandFailure | null, completedAt: number): void {
    this.finishStatement.run(status, failureReason, completedAt, id);
  }

  /** Ends every unfinished command with `reason` (startup recovery); returns how many. */
  failUnfinished(reason: CommandFailure, at: number): number {
    return this.failUnfinishedStatement.run(reason, at).changes;
  }

  /** The user's non-revoked eKeys on a lock (usable or not). */
  liveKeysOf(userId: string, lockId: string): CommandKeyRow[] {
    return this.liveKeysStatement.all(userId, lockId.toLowerCase());
  }
}
