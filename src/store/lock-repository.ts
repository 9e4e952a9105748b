import type { Bolt } from '../domain/lock-vocabulary.js';
import type { SqliteDatabase } from './database.js';

/** A lock as stored. `lockKey` is secret: it never leaves the service. */
export interface LockRecord {
  id: string;
  name: string;
  /**
   * Which protocol the lock speaks (docs/design.md §4b): a family id as plain text. The store knows no
   * families (src/families/registry.ts does); a lock whose family this version does not know keeps
   * it, and the runtime reports it (src/locks/lock-drivers.ts).
   */
  family: string;
  bleAddress: string | null;
  lockKey: string | null;
  timeZone: string;
  ownerId: string;
  /**
   * The service drives the lock over Bluetooth (config `locks[].gateway`, column `has_gateway`; the
   * spec's "connected to a bluetooth gateway device"). Off: listed only, its commands refused. Not
   * to be confused with the gateway, the BLE core (src/gateway/), nor with gateway devices (radios).
   */
  overBluetooth: boolean;
  /** A keypad is paired with the lock (config `keypad: true`): its eKeys can carry door codes (docs/design.md §4c). */
  keypad: boolean;
  boltState: Bolt;
  batteryLevel: number | null;
  lastSeenAt: number | null;
  lastActivitySequence: number;
  createdAt: number;
}

interface LockRow {
  id: string;
  name: string;
  family: string;
  ble_address: string | null;
  lock_key: string | null;
  time_zone: string;
  owner_id: string;
  has_gateway: number;
  keypad: number;
  bolt_state: Bolt;
  battery_level: number | null;
  last_seen_at: number | null;
  last_activity_sequence: number;
  created_at: number;
}

const toRecord = (row: LockRow): LockRecord => ({
  id: row.id,
  name: row.name,
  family: row.family,
  bleAddress: row.ble_address,
  lockKey: row.lock_key,
  timeZone: row.time_zone,
  ownerId: row.owner_id,
  overBluetooth: row.has_gateway === 1,
  keypad: row.keypad === 1,
  boltState: row.bolt_state,
  batteryLevel: row.battery_level,
  lastSeenAt: row.last_seen_at,
  lastActivitySequence: row.last_activity_sequence,
  createdAt: row.created_at,
});

export class LockRepository {
  private readonly byId;
  private readonly all;
  private readonly storedById;
  private readonly retiredNotIn;
  private readonly retireStatement;
  private readonly upsertStatement;
  private readonly stateStatement;
  private readonly ownerKeyStatement;
  private writes = 0;

  constructor(db: SqliteDatabase) {
    // A retired lock (removed from the config) is not a lock the service knows until it returns.
    this.byId = db.prepare<[string], LockRow>('SELECT * FROM locks WHERE id = ? AND retired_at IS NULL');
    this.all = db.prepare<[], LockRow>('SELECT * FROM locks WHERE retired_at IS NULL ORDER BY created_at, name');
    this.storedById = db.prepare<[string], LockRow & { retired_at: number | null }>('SELECT * FROM locks WHERE id = ?');
    this.retiredNotIn = db.prepare<[string], { id: string; name: string }>(
      `SELECT id, name FROM locks WHERE retired_at IS NULL AND id NOT IN (SELECT value FROM json_each(?)) ORDER BY created_at, name`,
    );
    this.retireStatement = db.prepare<[number, string]>('UPDATE locks SET retired_at = ? WHERE id = ? AND retired_at IS NULL');
    this.upsertStatement = db.prepare(
      `INSERT INTO locks (id, name, family, ble_address, lock_key, time_zone, owner_id, has_gateway, keypad, bolt_state,
         battery_level, last_seen_at, last_activity_sequence, created_at)
       VALUES (@id, @name, @family, @ble_address, @lock_key, @time_zone, @owner_id, @has_gateway, @keypad, @bolt_state,
         @battery_level, @last_seen_at, @last_activity_sequence, @created_at)
       ON CONFLICT(id) DO UPDATE SET name = excluded.name, family = excluded.family, ble_address = excluded.ble_address,
         lock_key = excluded.lock_key, time_zone = excluded.time_zone, owner_id = excluded.owner_id,
         has_gateway = excluded.has_gateway, keypad = excluded.keypad, retired_at = NULL`,
    );
    this.stateStatement = db.prepare(
      `UPDATE locks SET bolt_state = @bolt_state, battery_level = @battery_level, last_seen_at = @last_seen_at,
         last_activity_sequence = @last_activity_sequence WHERE id = @id`,
    );
    this.ownerKeyStatement = db.prepare(
      `INSERT INTO ekeys (id, lock_id, user_id, name, type, status, created_at, updated_at)
       SELECT @id, @lock_id, @user_id, 'Owner', 'owner', 'accepted', @now, @now
       WHERE NOT EXISTS (SELECT 1 FROM ekeys WHERE lock_id = @lock_id AND user_id = @user_id AND status <> 'revoked')`,
    );
  }

  /**
   * The owner of a registered lock automatically holds an accepted `owner` eKey (docs/design.md §3 Locks).
   * Inserts one unless the owner already holds a live key on the lock.
   */
  ensureOwnerKey(lockId: string, ownerId: string, keyId: string, now: number): boolean {
    this.writes += 1;
    return this.ownerKeyStatement.run({ id: keyId, lock_id: lockId.toLowerCase(), user_id: ownerId, now }).changes === 1;
  }

  /**
   * Grows with every write through this instance that changes a lock's configuration or adds an
   * owner key (not with {@link saveState}: observed state decides no access), so caches of access
   * decisions can tell they are stale. Other processes' commits: ReadCache's data_version check.
   */
  get writeVersion(): number {
    return this.writes;
  }

  /** Looks a lock up by id; ids are matched case-insensitively (stored lower case). */
  findById(id: string): LockRecord | undefined {
    const row = this.byId.get(id.toLowerCase());
    return row ? toRecord(row) : undefined;
  }

  list(): LockRecord[] {
    return this.all.all().map(toRecord);
  }

  /** A lock as stored, retired or not (the config sync decides what returns). */
  findStored(id: string): (LockRecord & { retired: boolean }) | undefined {
    const row = this.storedById.get(id.toLowerCase());
    return row ? { ...toRecord(row), retired: row.retired_at !== null } : undefined;
  }

  /**
   * Retires every lock not in `keep` (ids, lower case): it leaves every list and lookup, its eKeys
   * and events stay. Returns the locks retired now. {@link upsert} brings a lock back.
   */
  retireAllExcept(keep: readonly string[], now: number): { id: string; name: string }[] {
    const retired = this.retiredNotIn.all(JSON.stringify(keep.map((id) => id.toLowerCase())));
    if (retired.length === 0) return [];
    this.writes += 1;
    for (const lock of retired) this.retireStatement.run(now, lock.id);
    return retired;
  }

  /** Inserts a lock, or updates its configuration (not its observed state) when it exists; a retired lock returns. `keypad` defaults to false. */
  upsert(lock: Omit<LockRecord, 'keypad'> & { keypad?: boolean }): void {
    // The registry, not SQL, knows the families (migration 7); the config check refused unknown ones.
    if (lock.family.trim() === '') throw new Error(`Lock ${lock.id} has no family.`);
    this.writes += 1;
    this.upsertStatement.run({
      id: lock.id.toLowerCase(),
      name: lock.name,
      family: lock.family,
      ble_address: lock.bleAddress,
      lock_key: lock.lockKey,
      time_zone: lock.timeZone,
      owner_id: lock.ownerId,
      has_gateway: lock.overBluetooth ? 1 : 0,
      keypad: lock.keypad === true ? 1 : 0,
      bolt_state: lock.boltState,
      battery_level: lock.batteryLevel,
      last_seen_at: lock.lastSeenAt,
      last_activity_sequence: lock.lastActivitySequence,
      created_at: lock.createdAt,
    });
  }

  /** Persists what the gateway observed about a lock. */
  saveState(lock: Pick<LockRecord, 'id' | 'boltState' | 'batteryLevel' | 'lastSeenAt' | 'lastActivitySequence'>): void {
    this.stateStatement.run({
      id: lock.id,
      bolt_state: lock.boltState,
      battery_level: lock.batteryLevel,
      last_seen_at: lock.lastSeenAt,
      last_activity_sequence: lock.lastActivitySequence,
    });
  }
}
