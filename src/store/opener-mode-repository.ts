import type { OpenerModeName, SwitchOffReason } from '../domain/opener-mode.js';
import type { SqliteDatabase } from './database.js';

/** One Opener's row of `opener_modes` (migration 11). Times are epoch ms. */
export interface OpenerModeRecord {
  lockId: string;
  /** As the Opener last reported it. */
  mode: OpenerModeName;
  /** Who switched the current mode on through the service; null: nobody, or someone elsewhere. */
  setBy: string | null;
  /** When the service first saw the current mode on; null while it is off. */
  onSince: number | null;
  /** A switch-off the service owes until the Opener confirms it; null: none. */
  switchingOff: SwitchOffReason | null;
  /** The owner's cap on Continuous Mode, in minutes; null: none. */
  continuousLimitMinutes: number | null;
  updatedAt: number;
}

interface Row {
  lock_id: string;
  mode: OpenerModeName;
  set_by: string | null;
  on_since: number | null;
  switching_off: SwitchOffReason | null;
  continuous_limit_minutes: number | null;
  updated_at: number;
}

const toRecord = (row: Row): OpenerModeRecord => ({
  lockId: row.lock_id,
  mode: row.mode,
  setBy: row.set_by,
  onSince: row.on_since,
  switchingOff: row.switching_off,
  continuousLimitMinutes: row.continuous_limit_minutes,
  updatedAt: row.updated_at,
});

/** The `opener_modes` table: what the service knows of each Opener's mode and owes it. Ids are lower case. */
export class OpenerModeRepository {
  private readonly byLock;
  private readonly all;
  private readonly upsertStatement;

  constructor(db: SqliteDatabase) {
    this.byLock = db.prepare<[string], Row>('SELECT * FROM opener_modes WHERE lock_id = ?');
    this.all = db.prepare<[], Row>('SELECT * FROM opener_modes');
    this.upsertStatement = db.prepare(
      `INSERT INTO opener_modes (lock_id, mode, set_by, on_since, switching_off, continuous_limit_minutes, updated_at)
       VALUES (@lock_id, @mode, @set_by, @on_since, @switching_off, @continuous_limit_minutes, @updated_at)
       ON CONFLICT (lock_id) DO UPDATE SET mode = excluded.mode, set_by = excluded.set_by, on_since = excluded.on_since,
         switching_off = excluded.switching_off, continuous_limit_minutes = excluded.continuous_limit_minutes, updated_at = excluded.updated_at`,
    );
  }

  /** The lock's row, or a neutral one (mode none, nothing owed) when the service knows nothing yet. */
  read(lockId: string, now: number): OpenerModeRecord {
    const row = this.byLock.get(lockId.toLowerCase());
    return row ? toRecord(row) : { lockId: lockId.toLowerCase(), mode: 'none', setBy: null, onSince: null, switchingOff: null, continuousLimitMinutes: null, updatedAt: now };
  }

  /** Every Opener the service knows something of. */
  list(): OpenerModeRecord[] {
    return this.all.all().map(toRecord);
  }

  save(record: OpenerModeRecord): void {
    this.upsertStatement.run({
      lock_id: record.lockId.toLowerCase(),
      mode: record.mode,
      set_by: record.setBy,
      on_since: record.onSince,
      switching_off: record.switchingOff,
      continuous_limit_minutes: record.continuousLimitMinutes,
      updated_at: record.updatedAt,
    });
  }
}
