import type { Clock } from '../domain/clock.js';
import type { Logger } from '../logger.js';
import type { SqliteDatabase } from '../store/database.js';
import type { SettingsRepository } from '../store/settings-repository.js';
import { DEMO_SETTINGS_KEY, type DemoHousehold } from './demo-household.js';

export interface DemoRemovalDependencies {
  db: SqliteDatabase;
  settings: SettingsRepository;
  clock: Clock;
  logger: Logger;
  transaction: <T>(work: () => T) => T;
}

/** What was removed (for the log line and tests). */
export interface DemoRemoval {
  users: number;
  locks: number;
  clients: number;
  /** Demo users kept without a password because a lock that is not the demo's names them owner. */
  locked: number;
}

/**
 * Demo accounts do not outlive the demo (docs/design.md §9b): with `demo` off on a data folder
 * that holds a demo household, its users (whose passwords were printed), its OAuth client and its
 * locks are removed, in one transaction, with one log line. What goes with them:
 * - a demo lock's eKeys, commands and events (they describe a simulated lock that no longer
 *   exists); the event counters of those locks too;
 * - a demo user's tokens, codes, invitations and eKeys on any lock; keys they sent to others stay,
 *   with no sender; events they performed on other locks stay, under the name they had;
 * - invitations left without a pending eKey are closed (§9b).
 * Users created through the API (invited, signed up) are kept, as are their keys on other locks
 * and the clients and locks of the config. A demo user that a configured lock names as owner is
 * kept without a password (so nobody can sign in with the printed one); the owner sets a new one
 * with `ekey-locks user reset-password`. Turning the demo on again seeds a new household.
 */
export function removeDemoHousehold(deps: DemoRemovalDependencies): DemoRemoval | undefined {
  const stored = deps.settings.get(DEMO_SETTINGS_KEY) as { household?: Partial<DemoHousehold> } | undefined;
  if (stored === undefined) return undefined;
  const userIds = (stored.household?.users ?? []).map((user) => user.id);
  const lockIds = (stored.household?.locks ?? []).map((lock) => lock.id);
  const clientIds = (stored.household?.clients ?? []).map((client) => client.client_id);
  const { db } = deps;
  const now = deps.clock.now();
  const removal = deps.transaction((): DemoRemoval => {
    let locks = 0;
    for (const id of lockIds) {
      db.prepare('DELETE FROM lock_event_counts WHERE lock_id = ?').run(id);
      locks += db.prepare('DELETE FROM locks WHERE id = ?').run(id).changes;
    }
    let clients = 0;
    for (const id of clientIds) clients += db.prepare('DELETE FROM oauth_clients WHERE id = ?').run(id).changes;
    let users = 0;
    let locked = 0;
    for (const id of userIds) {
      const owns = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM locks WHERE owner_id = ?').get(id)?.n ?? 0;
      if (owns === 0) {
        users += db.prepare('DELETE FROM users WHERE id = ?').run(id).changes;
        continue;
      }
      db.prepare('UPDATE users SET password_hash = NULL WHERE id = ?').run(id);
      db.prepare('DELETE FROM oauth_tokens WHERE user_id = ?').run(id);
      db.prepare('DELETE FROM oauth_codes WHERE user_id = ?').run(id);
      locked += 1;
    }
    db.prepare(
      `UPDATE invitations SET closed_at = ?
        WHERE accepted_at IS NULL AND closed_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM ekeys WHERE ekeys.user_id = invitations.user_id AND ekeys.status = 'pending')`,
    ).run(now);
    db.prepare('DELETE FROM settings WHERE key = ?').run(DEMO_SETTINGS_KEY);
    return { users, locks, clients, locked };
  });
  const kept = removal.locked === 0 ? '' : `; ${removal.locked} demo user(s) own a configured lock and were kept without a password (set one with ekey-locks user reset-password)`;
  deps.logger.warn(
    `Demo is off: removed the demo household from this data folder (${removal.users} user(s), ${removal.locks} lock(s) with their eKeys and history, ` +
      `${removal.clients} client(s)); everything else is kept${kept}.`,
  );
  return removal;
}
