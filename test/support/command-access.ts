import { EKeyService } from '../../src/access/ekey-service.js';
import { createInvitationMailer } from '../../src/access/invitation-mailer.js';
import { InvitationService } from '../../src/access/invitation-service.js';
import { accessFromKeyService, type CommandAccess } from '../../src/commands/command-access.js';
import type { Clock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/logger.js';
import { CommandRepository } from '../../src/store/command-repository.js';
import type { SqliteDatabase } from '../../src/store/database.js';
import { EKeyRepository } from '../../src/store/ekey-repository.js';
import { InvitationRepository } from '../../src/store/invitation-repository.js';
import { LockRepository } from '../../src/store/lock-repository.js';
import { UserRepository } from '../../src/store/user-repository.js';

/**
 * The command engine's permission answers as the service gives them: the real eKey service over
 * the store of `db` (what src/service-root.ts wires), not a second implementation of the rules for tests.
 */
export function commandAccessOver(db: SqliteDatabase, clock: Clock): CommandAccess {
  const transaction = <T>(work: () => T): T => db.transaction(work)();
  const repositories = {
    users: new UserRepository(db),
    locks: new LockRepository(db),
    ekeys: new EKeyRepository(db),
    invitations: new InvitationRepository(db),
  };
  const invitations = new InvitationService({ ...repositories, mailer: createInvitationMailer(undefined, silentLogger), logger: silentLogger, clock, transaction });
  const keys = new EKeyService({ ...repositories, invitations, clock, transaction });
  return accessFromKeyService(keys, new CommandRepository(db), repositories.locks);
}
