import type { Bolt } from '../domain/lock-vocabulary.js';
import type { SqliteDatabase } from './database.js';

/** Whether the gateway can reach a lock now (docs/design.md §3 Locks). */
export type OnlineStatus = 'online' | 'offline';

/** What the service last observed about a lock. */
export interface ObservedLockState {
  boltState: Bolt;
  onlineStatus: OnlineStatus;
  /** 0..1, null until first reported. */
  batteryLevel: number | null;
  /** Epoch ms, null until first heard from. */
  lastSeenAt: number | null;
  /** Highest activity sequence already handed to the event recorder. */
  lastActivitySequence: number;
}

interface StateRow {
  bolt_state: Bolt;
  online_status: OnlineStatus;
  battery_level: number | null;
  last_seen_at: number | null;
  last_activity_sequence: number;
}

/**
 * The observed-state columns of the locks table, written field by field by the lock runtime so
 * that concurrent observations never overwrite each other with stale copies.
 */
export class LockStateRepository {
  private readonly readStatement;
  private readonly boltStatement;
  private readonly batteryStatement;
  private readonly onlineStatement;
  private readonly seenStatement;
  private readonly sequenceStatement;
  private readonly allOfflineStatement;

  constructor(db: SqliteDatabase) {
    this.readStatement = db.prepare<[string], StateRow>(
      'SELECT bolt_state, online_status, battery_level, last_seen_at, last_activity_sequence FROM locks WHERE id = ?',
    );
    // Each observation is one statement (one commit) that also carries the time of the sign of life.
    const seen = 'last_seen_at = COALESCE(?, last_seen_at)';
    this.boltStatement = db.prepare<[Bolt, number | null, string]>(`UPDATE locks SET bolt_state = ?, ${seen} WHERE id = ?`);
    this.batteryStatement = db.prepare<[number, number | null, string]>(`UPDATE locks SET battery_level = ?, ${seen} WHERE id = ?`);
    this.onlineStatement = db.prepare<[OnlineStatus, number | null, string]>(`UPDATE locks SET online_status = ?, ${seen} WHERE id = ?`);
    this.seenStatement = db.prepare<[number, string]>('UPDATE locks SET last_seen_at = ? WHERE id = ?');
    // Never moves backwards: a late backlog record must not lower the stored high-water mark.
    this.sequenceStatement = db.prepare<[number, number | null, string]>(
      `UPDATE locks SET last_activity_sequence = MAX(last_activity_sequence, ?), ${seen} WHERE id = ?`,
    );
    this.allOfflineStatement = db.prepare("UPDATE locks SET online_status = 'offline'");
  }

  /** The observed state of a lock, undefined for an unknown id. */
  read(lockId: string): ObservedLockState | undefined {
    const row = this.readStatement.get(lockId.toLowerCase());
    if (!row) return undefined;
    return {
      boltState: row.bolt_state,
      onlineStatus: row.online_status,
      batteryLevel: row.battery_level,
      lastSeenAt: row.last_seen_at,
      lastActivitySequence: row.last_activity_sequence,
    };
  }

  /** `seenAt`: when the gateway last heard from the lock (null keeps the stored time). */
  saveBolt(lockId: string, bolt: Bolt, seenAt: number | null = null): void {
    this.boltStatement.run(bolt, seenAt, lockId.toLowerCase());
  }

  saveBattery(lockId: string, level: number, seenAt: number | null = null): void {
    this.batteryStatement.run(level, seenAt, lockId.toLowerCase());
  }

  saveOnline(lockId: string, status: OnlineStatus, seenAt: number | null = null): void {
    this.onlineStatement.run(status, seenAt, lockId.toLowerCase());
  }

  saveLastSeen(lockId: string, at: number): void {
    this.seenStatement.run(at, lockId.toLowerCase());
  }

  saveActivitySequence(lockId: string, sequence: number, seenAt: number | null = null): void {
    this.sequenceStatement.run(sequence, seenAt, lockId.toLowerCase());
  }

  /** At startup nothing is reachable until the gateway has connected. */
  markAllOffline(): void {
    this.allOfflineStatement.run();
  }
}
