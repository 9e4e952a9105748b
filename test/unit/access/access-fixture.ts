/**
 * An in-memory store with one lock (Europe/Berlin) and its owner, and the eKey, lock and
 * invitation services wired as in the composition root, on a ManualClock.
 */
import { EKeyService, type LockHolding } from '../../../src/access/ekey-service.js';
import type { InvitationMailer, InvitationMessage } from '../../../src/access/invitation-mailer.js';
import { InvitationService } from '../../../src/access/invitation-service.js';
import { LockService } from '../../../src/access/lock-service.js';
import { newId } from '../../../src/domain/ids.js';
import { openDatabase, type SqliteDatabase } from '../../../src/store/database.js';
import { DerivedCache } from '../../../src/store/derived-cache.js';
import { EKeyRepository } from '../../../src/store/ekey-repository.js';
import { InvitationRepository } from '../../../src/store/invitation-repository.js';
import { LockRepository } from '../../../src/store/lock-repository.js';
import { UserRepository, type UserRecord } from '../../../src/store/user-repository.js';
import { ManualClock } from '../../support/manual-clock.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { lockRecord } from '../../support/lock-record.js';

/** Monday 2026-03-09 10:00 in Berlin (09:00 UTC). */
export const START = Date.UTC(2026, 2, 9, 9, 0, 0);
export const ZONE = 'Europe/Berlin';

/** Collects invitations instead of sending them (the real SMTP path is tested over HTTP). */
export class CollectingMailer implements InvitationMailer {
  readonly sent: InvitationMessage[] = [];
  fail = false;
  send(message: InvitationMessage): Promise<void> {
    if (this.fail) return Promise.reject(new Error('mail server said no'));
    this.sent.push(message);
    return Promise.resolve();
  }
}

export interface AccessFixture {
  db: SqliteDatabase;
  clock: ManualClock;
  logger: RecordingLogger;
  mailer: CollectingMailer;
  users: UserRepository;
  locks: LockRepository;
  ekeys: EKeyRepository;
  invitations: InvitationService;
  service: EKeyService;
  lockService: LockService;
  lockId: string;
  owner: UserRecord;
  addUser(name: string, overrides?: Partial<UserRecord>): UserRecord;
}

export function createAccessFixture(): AccessFixture {
  const db = openDatabase(':memory:');
  const clock = new ManualClock(START);
  const logger = new RecordingLogger();
  const mailer = new CollectingMailer();
  const users = new UserRepository(db);
  const locks = new LockRepository(db);
  const ekeys = new EKeyRepository(db);
  const transaction = <T>(work: () => T): T => db.transaction(work)();
  const addUser = (name: string, overrides: Partial<UserRecord> = {}): UserRecord => {
    const user: UserRecord = {
      id: newId(),
      email: `${name.toLowerCase()}@example.com`,
      name,
      passwordHash: 'scrypt$test',
      ekeyQuota: null,
      canSendEkeys: true,
      createdAt: START,
      ...overrides,
    };
    users.insert(user);
    return user;
  };
  const owner = addUser('Olivia');
  const lockId = newId();
  locks.upsert(lockRecord({ id: lockId, name: 'Front Door', timeZone: ZONE, ownerId: owner.id, createdAt: START }));
  locks.ensureOwnerKey(lockId, owner.id, newId(), START);
  const invitations = new InvitationService({
    invitations: new InvitationRepository(db),
    users,
    ekeys,
    locks,
    mailer,
    logger,
    clock,
    transaction,
    baseUrl: 'https://locks.example.com',
  });
  const holdings = new DerivedCache<LockHolding>(db, [locks, ekeys], { limit: 1_000 });
  const service = new EKeyService({ ekeys, locks, users, invitations, clock, transaction, holdings });
  const lockService = new LockService({ locks, ekeys, clock });
  return { db, clock, logger, mailer, users, locks, ekeys, invitations, service, lockService, lockId, owner, addUser };
}
