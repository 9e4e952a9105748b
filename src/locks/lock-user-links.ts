import { configuredLockId } from '../config/config-sync.js';
import type { LockConfig, PluginConfig } from '../config/plugin-config.js';
import type { UserRepository } from '../store/user-repository.js';

/** Lock-side user name → user e-mail, per lock id (lower case). */
export type UserLinkTable = ReadonlyMap<string, ReadonlyMap<string, string>>;

/**
 * The links of every configured lock whose family keeps its own users (docs/design.md §4b), by
 * the configured lock's id: `linksOf(entry)` is that lock's family's own reading of its entry
 * (src/families/lock-family-module.ts `userLinks`), undefined for a family without users.
 */
export function userLinksOfConfig(config: PluginConfig, linksOf: (entry: LockConfig) => ReadonlyMap<string, string> | undefined): Map<string, ReadonlyMap<string, string>> {
  const table = new Map<string, ReadonlyMap<string, string>>();
  for (const lock of config.locks ?? []) {
    const id = configuredLockId(lock);
    const links = linksOf(lock);
    if (id === undefined || links === undefined || links.size === 0) continue;
    table.set(id, links);
  }
  return table;
}

/**
 * Resolves a lock-side user (by the name the lock logs) to one of our users (docs/design.md §4b).
 * Names match exactly, else ignoring case and surrounding spaces (a lock may store at most 32
 * bytes and pad them); e-mails are looked up at each call, so a user who signs up later is linked
 * from then on. Null when unlinked or the user does not exist.
 */
export function linkedUserResolver(table: UserLinkTable, users: Pick<UserRepository, 'findByEmail'>): (lockId: string, authorization: string) => string | null {
  return (lockId, authorization) => {
    const links = table.get(lockId.toLowerCase());
    if (links === undefined) return null;
    let email = links.get(authorization);
    if (email === undefined) {
      const wanted = authorization.trim().toLowerCase();
      for (const [name, candidate] of links) {
        if (name.trim().toLowerCase() === wanted) {
          email = candidate;
          break;
        }
      }
    }
    return email === undefined ? null : (users.findByEmail(email)?.id ?? null);
  };
}
