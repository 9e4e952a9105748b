import type { Clock } from '../domain/clock.js';
import { newId, normalizeId, stableId } from '../domain/ids.js';
import { DEFAULT_LOCK_FAMILY } from '../domain/lock-family.js';
import { sha256Hex } from '../auth/secrets.js';
import type { Logger } from '../logger.js';
import type { ClientRepository } from '../store/client-repository.js';
import type { LockRepository } from '../store/lock-repository.js';
import type { UserRepository } from '../store/user-repository.js';
import type { PluginConfig } from './plugin-config.js';
import { hostTimeZone, isValidTimeZone } from './time-zone.js';

export interface ConfigSyncDependencies {
  users: UserRepository;
  clients: ClientRepository;
  locks: LockRepository;
  clock: Clock;
  logger: Logger;
  transaction: <T>(work: () => T) => T;
}

/** The id of a configured lock: its explicit id, else one derived from its address or name. */
export const configuredLockId = (lock: { id?: string | undefined; address?: string | undefined; name: string }): string =>
  lock.id ? normalizeId(lock.id) : stableId('ekey-locks:lock', (lock.address ?? lock.name).toUpperCase());

/**
 * Brings the store in line with the config: OAuth clients, locks (with their owner's `owner`
 * eKey) and per-user sending policies. A lock whose owner has no account yet gets an invited
 * account, which the owner activates with `ekey-locks user add`.
 */
export function syncConfig(config: PluginConfig, deps: ConfigSyncDependencies): void {
  const now = deps.clock.now();
  deps.transaction(() => {
    for (const client of config.clients ?? []) {
      const isPublic = client.public ?? client.client_secret === undefined;
      deps.clients.upsert({
        id: normalizeId(client.client_id),
        name: client.name ?? 'Client',
        secretHash: client.client_secret === undefined ? null : sha256Hex(client.client_secret),
        isPublic,
        redirectUris: client.redirect_uris,
        createdAt: deps.clients.findById(normalizeId(client.client_id))?.createdAt ?? now,
      });
    }

    for (const lock of config.locks ?? []) {
      let owner = deps.users.findByEmail(lock.owner_email);
      if (!owner) {
        owner = {
          id: newId(),
          email: lock.owner_email,
          name: lock.owner_email.split('@')[0] ?? lock.owner_email,
          passwordHash: null,
          ekeyQuota: null,
          canSendEkeys: true,
          createdAt: now,
        };
        deps.users.insert(owner);
        deps.logger.warn(
          `Lock "${lock.name}": its owner ${lock.owner_email} has no account yet; create it with ` +
            `"ekey-locks user add --email ${lock.owner_email} --name <name>".`,
        );
      }
      const zone = lock.time_zone ?? hostTimeZone();
      if (!isValidTimeZone(zone)) throw new Error(`Lock "${lock.name}": unknown time zone "${zone}".`);
      const id = configuredLockId(lock);
      const existing = deps.locks.findById(id);
      deps.locks.upsert({
        id,
        name: lock.name,
        family: lock.family ?? DEFAULT_LOCK_FAMILY,
        bleAddress: lock.address?.toUpperCase() ?? null,
        lockKey: lock.key?.toLowerCase() ?? null,
        timeZone: zone,
        ownerId: owner.id,
        hasGateway: (lock.gateway ?? true) && lock.address !== undefined,
        boltState: existing?.boltState ?? 'unknown',
        batteryLevel: existing?.batteryLevel ?? null,
        lastSeenAt: existing?.lastSeenAt ?? null,
        lastActivitySequence: existing?.lastActivitySequence ?? 0,
        createdAt: existing?.createdAt ?? now,
      });
      deps.locks.ensureOwnerKey(id, owner.id, newId(), now);
    }

    for (const policy of config.users ?? []) {
      const user = deps.users.findByEmail(policy.email);
      if (!user) {
        deps.logger.warn(`Config "users": no account for ${policy.email}; its policy is ignored until the account exists.`);
        continue;
      }
      deps.users.update({
        ...user,
        ekeyQuota: policy.ekey_quota === undefined ? user.ekeyQuota : policy.ekey_quota,
        canSendEkeys: policy.can_send_ekeys ?? user.canSendEkeys,
      });
    }
  });
}
