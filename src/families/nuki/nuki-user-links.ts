import { configuredLockId } from '../../config/config-sync.js';
import type { PluginConfig } from '../../config/plugin-config.js';
import type { UserRepository } from '../../store/user-repository.js';

/** Authorization name → user e-mail, per lock id. */
export type NukiUserLinkTable = ReadonlyMap<string, ReadonlyMap<string, string>>;

/**
 * The `locks[].nuki_users` of a config, keyed by the configured lock's id. Either shape counts: a
 * map (authorization name → e-mail) or the list the Homebridge UI's form edits
 * (`[{ "authorization", "email" }]`, src/config/plugin-config-schema.ts).
 */
export function nukiUserLinksOfConfig(config: PluginConfig): Map<string, Map<string, string>> {
  const table = new Map<string, Map<string, string>>();
  for (const lock of config.locks ?? []) {
    const id = configuredLockId(lock);
    const links = lock.nuki_users;
    if (links === undefined || id === undefined) continue;
    table.set(id, new Map(Array.isArray(links) ? links.map((link) => [link.authorization, link.email] as const) : Object.entries(links)));
  }
  return table;
}

/**
 * Resolves a Nuki authorization (by the name the lock logs) to one of our users (docs/design.md §4b,
 * config `locks[].nuki_users`). Names match exactly, else ignoring case and surrounding spaces
 * (the lock stores at most 32 bytes and pads them); e-mails are looked up at each call, so a
 * user who signs up later is linked from then on. Null when unlinked or the user does not exist.
 */
export function nukiUserResolver(table: NukiUserLinkTable, users: Pick<UserRepository, 'findByEmail'>): (lockId: string, authorization: string) => string | null {
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
