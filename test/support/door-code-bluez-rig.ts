/**
 * The door-code sync engine (src/locks/door-code-sync.ts) as the service runs it, over the production
 * BLE path: a SQLite file with the real repositories, the DoorCodeService that records intent, the
 * LockGateway with the Nuki driver, BluezTransport → a private dbus-daemon → the fake BlueZ serving
 * a SimulatedNuki with a keypad. `restart()` drops the engine, the gateway and the database
 * connection and opens them again on the same file, as a service restart does.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { DoorCodeService } from '../../src/access/door-code-service.js';
import { doorCodeRulesOf } from '../../src/families/registry.js';
import type { EKeyType } from '../../src/domain/ekey-types.js';
import { NukiDriver, type NukiDriverCredentials } from '../../src/families/nuki/driver/nuki-driver.js';
import { SimulatedNuki, type SimulatedNukiOptions } from '../../src/families/nuki/simulator/simulated-nuki.js';
import { LockGateway } from '../../src/gateway/lock-gateway.js';
import { BluezTransport } from '../../src/gateway/transports/bluez/bluez-transport.js';
import { DoorCodeSync } from '../../src/locks/door-code-sync.js';
import { openDatabase, transactionRunner, type SqliteDatabase } from '../../src/store/database.js';
import { DoorCodeRepository, type DoorCodeRecord } from '../../src/store/door-code-repository.js';
import { EKeyRepository, type StoredEKey } from '../../src/store/ekey-repository.js';
import { LockRepository } from '../../src/store/lock-repository.js';
import { UserRepository } from '../../src/store/user-repository.js';
import type { FakeBluezEnvironment } from './fake-bluez/fake-bluez-environment.js';
import type { FakeDevice } from './fake-bluez/fake-bluez.js';
import { testLogger } from './fake-bluez/test-logger.js';
import { ManualClock } from './manual-clock.js';
import { NukiWireRecorder } from './nuki-wire-recorder.js';
import { RecordingLogger } from './recording-logger.js';
import { lockRecord } from './lock-record.js';

const SHARED_KEY = Buffer.alloc(32, 0x6b);
const AUTHORIZATION_ID = 21;
const SECURITY_PIN = 2468;
const CREDENTIALS: NukiDriverCredentials = { sharedKey: SHARED_KEY, authorizationId: AUTHORIZATION_ID, appId: 77, securityPin: SECURITY_PIN };

let nextAddress = 0x40;

/** One running instance of the engine and its gateway on the rig's database file. */
interface Running {
  db: SqliteDatabase;
  doorCodes: DoorCodeRepository;
  ekeys: EKeyRepository;
  service: DoorCodeService;
  gateway: LockGateway;
  wire: NukiWireRecorder;
  sync: DoorCodeSync;
  logger: RecordingLogger;
}

export class DoorCodeBluezRig {
  readonly clock = new ManualClock(Date.now());
  readonly lockId = randomUUID();
  readonly ownerId = randomUUID();
  readonly nuki: SimulatedNuki;
  readonly device: FakeDevice;
  /** Every log line of every run (restarts included): codes must never appear in them. */
  readonly logLines: { level: string; message: string }[] = [];
  private running: Running | undefined;
  private readonly changes = new EventEmitter<{ change: [string] }>();

  constructor(
    private readonly environment: FakeBluezEnvironment,
    private readonly dbFile: string,
    nukiOptions: Partial<SimulatedNukiOptions> = {},
  ) {
    const address = `C0:FF:EE:4B:00:${(nextAddress++).toString(16).padStart(2, '0').toUpperCase()}`;
    this.nuki = new SimulatedNuki({
      address,
      name: `Nuki ${address}`,
      clock: this.clock,
      securityPin: SECURITY_PIN,
      keypad: true,
      authorizations: [{ id: AUTHORIZATION_ID, name: 'Gateway', type: 'app', sharedKey: SHARED_KEY }],
      ...nukiOptions,
    });
    this.device = environment.bluez.addDevice(this.nuki);
    const db = openDatabase(dbFile);
    new UserRepository(db).insert({ id: this.ownerId, email: 'olivia@example.org', name: 'Olivia', passwordHash: null, ekeyQuota: null, canSendEkeys: true, createdAt: this.clock.now() });
    new LockRepository(db).upsert(lockRecord({ id: this.lockId, name: 'Back Door', family: 'nuki', bleAddress: address, ownerId: this.ownerId, keypad: true, createdAt: this.clock.now() }));
    db.close();
  }

  get current(): Running {
    if (this.running === undefined) throw new Error('the rig is not running');
    return this.running;
  }

  /** Opens the database, the gateway and the engine (the service's start); resolves once the gateway's first link is released. */
  async start(): Promise<void> {
    const db = openDatabase(this.dbFile);
    const doorCodes = new DoorCodeRepository(db);
    const ekeys = new EKeyRepository(db);
    const logger = new RecordingLogger();
    const push = logger.lines.push.bind(logger.lines);
    logger.lines.push = (...lines) => {
      this.logLines.push(...lines);
      return push(...lines);
    };
    const wire = new NukiWireRecorder(new BluezTransport({ busAddress: this.environment.busAddress, discoveryIntervalMs: 20, operationTimeoutMs: 3_000, logger: testLogger() }), SHARED_KEY);
    const gateway = new LockGateway(wire, this.clock, logger, { connectTimeoutMs: 5_000, operationTimeoutMs: 3_000, commandTimeoutMs: 8_000, presenceCheckIntervalMs: 3_600_000 });
    gateway.addLock({ id: this.lockId, address: this.nuki.address, name: 'Back Door', driver: new NukiDriver(CREDENTIALS, { idleDisconnectMs: 50 }) });
    const sync = new DoorCodeSync({
      doorCodes,
      ekeys,
      locks: new LockRepository(db),
      gateway,
      clock: this.clock,
      logger,
      sessionTimeoutMs: 8_000,
      changes: {
        onChange: (listener) => {
          this.changes.on('change', listener);
          return () => this.changes.off('change', listener);
        },
      },
    });
    this.running = { db, doorCodes, ekeys, service: new DoorCodeService({ doorCodes, clock: this.clock, keypadRulesOf: () => doorCodeRulesOf('nuki') }), gateway, wire, sync, logger };
    const released = this.nuki.inRange ? wire.nextRelease(10_000) : Promise.resolve();
    gateway.start();
    sync.start();
    await released;
  }

  /** Stops the engine and the gateway and closes the database, keeping the file (a service stop). */
  async stop(): Promise<void> {
    const running = this.running;
    if (running === undefined) return;
    this.running = undefined;
    running.sync.stop();
    await running.sync.settled();
    await running.gateway.stop();
    await running.wire.close();
    running.db.close();
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** An accepted key for a new holder, given a door code (what POST /ekey with `door_code: true` records), then the engine told. */
  giveKey(fields: { type?: EKeyType; valid_from?: number | null; valid_to?: number | null; schedule_start?: string | null; schedule_end?: string | null } = {}): StoredEKey {
    const { db, ekeys, service } = this.current;
    const now = this.clock.now();
    const holder = randomUUID();
    new UserRepository(db).insert({ id: holder, email: `${holder}@example.org`, name: 'Guest', passwordHash: null, ekeyQuota: null, canSendEkeys: false, createdAt: now });
    const key: StoredEKey = {
      id: randomUUID(),
      lock_id: this.lockId,
      user_id: holder,
      name: null,
      type: fields.type ?? 'anytime',
      status: 'accepted',
      valid_from: fields.valid_from ?? null,
      valid_to: fields.valid_to ?? null,
      schedule_start: fields.schedule_start ?? null,
      schedule_end: fields.schedule_end ?? null,
      message: null,
      sent_by: this.ownerId,
      created_at: now,
      updated_at: now,
      revoked_at: null,
    };
    transactionRunner(db)(() => {
      ekeys.insert(key);
      service.afterSend(key, true);
    });
    this.changes.emit('change', this.lockId);
    return key;
  }

  /** Revokes a key (what DELETE /ekey/{id} records), then the engine told. */
  revoke(keyId: string): void {
    const { db, ekeys, service } = this.current;
    const key = ekeys.findById(keyId);
    if (key === undefined) throw new Error(`no key ${keyId}`);
    const now = this.clock.now();
    transactionRunner(db)(() => {
      ekeys.update({ ...key, status: 'revoked', revoked_at: now, updated_at: now });
      service.afterRemove(key);
    });
    this.changes.emit('change', this.lockId);
  }

  /** The key's `door_code` as the API would answer its holder. */
  doorCodeOf(keyId: string): ReturnType<DoorCodeService['view']> {
    const key = this.current.ekeys.findById(keyId);
    if (key === undefined) throw new Error(`no key ${keyId}`);
    return this.current.service.view(key, { userId: key.user_id, role: null });
  }

  /** Every row written from now on (insert and update, this run), in order: the states a code went through. */
  recordStates(): DoorCodeRecord[] {
    const seen: DoorCodeRecord[] = [];
    const repository = this.current.doorCodes;
    const insert = repository.insert.bind(repository);
    const update = repository.update.bind(repository);
    repository.insert = (record) => {
      const stored = insert(record);
      seen.push({ ...stored });
      return stored;
    };
    repository.update = (record) => {
      update(record);
      seen.push({ ...record });
    };
    return seen;
  }

  /** Resolves once `predicate` holds, checking after each sync settles and each turn of the event loop (bounded). */
  async until(predicate: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.running?.sync.settled();
      if (predicate()) return;
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** The digits the simulated lock holds, as strings. */
  codesOnLock(): string[] {
    return this.nuki.keypadCodes().map((entry) => String(entry.code));
  }
}
