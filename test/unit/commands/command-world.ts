/**
 * A small world for command engine tests: an in-memory store with an owner, a guest and a
 * stranger, a lock with a gateway connection and one without, and a gateway scripted by the test.
 */
import { eventShapeOfCommand } from '../../../src/domain/lock-command-type.js';
import { randomUUID } from 'node:crypto';
import { CommandEngine, type CommandEngineOptions, type CommandGateway } from '../../../src/commands/command-engine.js';
import { ServiceError } from '../../../src/domain/errors.js';
import type { CommandOutcome } from '../../../src/gateway/command-outcome.js';
import { CommandRepository } from '../../../src/store/command-repository.js';
import { openDatabase, type SqliteDatabase } from '../../../src/store/database.js';
import { LockRepository } from '../../../src/store/lock-repository.js';
import { UserRepository } from '../../../src/store/user-repository.js';
import { ManualClock } from '../../support/manual-clock.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { commandAccessOver } from '../../support/command-access.js';
import { thrownError } from '../../support/thrown-error.js';
import { lockRecord } from '../../support/lock-record.js';

/** A gateway whose answers the test gives by hand. */
export class ScriptedGateway implements CommandGateway {
  readonly reachable = new Set<string>();
  readonly calls: { lockId: string; action: string; timeoutMs: number | undefined; answer: (outcome: CommandOutcome) => void }[] = [];

  isReachable(lockId: string): boolean {
    return this.reachable.has(lockId);
  }

  sendCommand(lockId: string, action: 'lock' | 'unlock', options?: { timeoutMs?: number }): Promise<CommandOutcome> {
    return new Promise((resolve) => {
      this.calls.push({ lockId, action, timeoutMs: options?.timeoutMs, answer: resolve });
    });
  }

  /** Answers the oldest unanswered call. */
  answerNext(outcome: CommandOutcome): void {
    const call = this.calls.shift();
    if (!call) throw new Error('no command is waiting for an answer');
    call.answer(outcome);
  }
}

export const completed = (bolt: 'locked' | 'unlocked'): CommandOutcome => ({ status: 'completed', bolt });
export const failedWith = (reason: 'jammed' | 'timeout' | 'delivery_failed' | 'lock_offline'): CommandOutcome => ({ status: 'failed', reason });

/** Settles pending promise callbacks (the engine reacts to gateway answers asynchronously). */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The error a call throws, for status/code assertions. */
export const thrown = (work: () => unknown): ServiceError => thrownError(ServiceError, work);

export interface World {
  db: SqliteDatabase;
  clock: ManualClock;
  locks: LockRepository;
  gateway: ScriptedGateway;
  commands: CommandRepository;
  recorded: { commandId: string; performerId: string; action: string }[];
  logger: RecordingLogger;
  owner: string;
  guest: string;
  stranger: string;
  lock: string;
  noGatewayLock: string;
  engine: CommandEngine;
  newEngine(options?: CommandEngineOptions): CommandEngine;
  /** Adds a user; returns the id. */
  person(name: string): string;
  grant(userId: string, lockId: string, fields?: { type?: string; status?: string; validFrom?: number | null; validTo?: number | null; scheduleStart?: string | null; scheduleEnd?: string | null }): void;
}

/** `lockKey`: the Front Door's 64-hex key (default none); its address is AA:BB:CC:DD:EE:01. */
export function createWorld(options: { lockKey?: string } = {}): World {
  const db = openDatabase(':memory:');
  const clock = new ManualClock(Date.UTC(2026, 5, 10, 12, 0, 0));
  const users = new UserRepository(db);
  const locks = new LockRepository(db);
  const commands = new CommandRepository(db);
  const logger = new RecordingLogger();
  const gateway = new ScriptedGateway();
  const recorded: World['recorded'] = [];
  const person = (name: string): string => {
    const id = randomUUID();
    users.insert({ id, email: `${name}-${id}@example.com`, name, passwordHash: null, ekeyQuota: null, canSendEkeys: true, createdAt: clock.now() });
    return id;
  };
  const owner = person('owner');
  const guest = person('guest');
  const stranger = person('stranger');
  const addLock = (overBluetooth: boolean): string => {
    const id = randomUUID();
    locks.upsert(
      lockRecord({
        id,
        name: overBluetooth ? 'Front Door' : 'Garden Gate',
        bleAddress: 'AA:BB:CC:DD:EE:01',
        lockKey: overBluetooth ? (options.lockKey ?? null) : null,
        ownerId: owner,
        overBluetooth,
        createdAt: clock.now(),
      }),
    );
    locks.ensureOwnerKey(id, owner, randomUUID(), clock.now());
    return id;
  };
  const lock = addLock(true);
  const noGatewayLock = addLock(false);
  gateway.reachable.add(lock);
  const access = commandAccessOver(db, clock);
  const newEngine = (options: CommandEngineOptions = {}): CommandEngine =>
    new CommandEngine(
      {
        commands,
        locks,
        access,
        gateway,
        events: {
          recordCommandCompleted: (input) => {
            recorded.push({ commandId: input.commandId, performerId: input.performerId, action: input.action });
            return { id: randomUUID(), lockId: input.lockId, type: eventShapeOfCommand(input.action).type, performerId: input.performerId, timestamp: input.timestamp, value: null };
          },
        },
        clock,
        logger,
      },
      options,
    );
  const world: World = {
    db,
    clock,
    locks,
    gateway,
    commands,
    recorded,
    logger,
    owner,
    guest,
    stranger,
    lock,
    noGatewayLock,
    engine: newEngine({ timeoutMs: 15_000 }),
    newEngine,
    person,
    grant(userId, lockId, fields = {}) {
      db.prepare(
        `INSERT INTO ekeys (id, lock_id, user_id, name, type, status, valid_from, valid_to, schedule_start, schedule_end, created_at, updated_at)
         VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        randomUUID(),
        lockId,
        userId,
        fields.type ?? 'anytime',
        fields.status ?? 'accepted',
        fields.validFrom ?? null,
        fields.validTo ?? null,
        fields.scheduleStart ?? null,
        fields.scheduleEnd ?? null,
        clock.now(),
        clock.now(),
      );
    },
  };
  return world;
}

