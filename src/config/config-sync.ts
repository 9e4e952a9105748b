import { cleanDisplayText } from '../domain/display-text.js';
import type { Clock } from '../domain/clock.js';
import { newId, normalizeId, stableId } from '../domain/ids.js';
import { DEFAULT_LOCK_FAMILY, familyDescriptor } from '../families/registry.js';
import { sha256Hex } from '../auth/secrets.js';
import type { Logger } from '../logger.js';
import type { ClientRepository } from '../store/client-repository.js';
import type { LockRepository } from '../store/lock-repository.js';
import type { UserRepository } from '../store/user-repository.js';
import { lockEntryProblems, type LockConfig, type PluginConfig } from './plugin-config.js';
import { hostTimeZone } from './time-zone.js';

export interface ConfigSyncDependencies {
  users: UserRepository;
  clients: ClientRepository;
  locks: LockRepository;
  clock: Clock;
  logger: Logger;
  transaction: <T>(work: () => T) => T;
  /** Stored locks that stay although the config does not name them (the demo household's). */
  keepLockIds?: readonly string[];
}

/**
 * The id of a configured lock: its explicit `id`, else one derived from its Bluetooth address —
 * never from its name, so renaming a lock keeps its eKeys and history (docs/design.md §9). Undefined for
 * an entry with neither (see {@link resolveLockId}).
 */
export const configuredLockId = (lock: { id?: string | undefined; address?: string | undefined; name?: string }): string | undefined =>
  lock.id ? normalizeId(lock.id) : lock.address ? stableId('ekey-locks:lock', lock.address.toUpperCase()) : undefined;

/** The id versions before 0.2 gave a lock with neither `id` nor `address`: derived from its name. */
export const legacyNameLockId = (name: string): string => stableId('ekey-locks:lock', name.toUpperCase());

type LockIdResolution = { id: string; legacy: boolean } | { error: string };

/**
 * A lock without `id` and `address` keeps the name-derived id it was stored under by earlier
 * versions (so existing installations keep their keys), with a warning to write that id into the
 * config; a new one must be given an `id`.
 */
function resolveLockId(lock: LockConfig, locks: LockRepository): LockIdResolution {
  const id = configuredLockId(lock);
  if (id !== undefined) return { id, legacy: false };
  const legacy = legacyNameLockId(lock.name);
  if (locks.findStored(legacy) !== undefined) return { id: legacy, legacy: true };
  return { error: `id: a lock without an address needs an "id" (a UUID, for example "${newId()}") so that renaming it keeps its eKeys and history` };
}

/** The config with every lock the sync accepted, each with its resolved `id`. */
export type SyncedConfig = PluginConfig & { locks: (LockConfig & { id: string })[] };

/**
 * Brings the store in line with the config: OAuth clients, locks (with their owner's `owner`
 * eKey) and per-user sending policies. A lock whose owner has no account yet gets an invited
 * account, which the owner activates with `ekey-locks user add`. A lock entry that cannot run is
 * left out with one error line; a stored lock the config no longer names is retired (its keys and
 * history stay) and returns when it is configured again. Returns the config as it runs: the
 * accepted locks, each with its id.
 */
export function syncConfig(config: PluginConfig, deps: ConfigSyncDependencies): SyncedConfig {
  const now = deps.clock.now();
  const accepted: (LockConfig & { id: string })[] = [];
  deps.transaction(() => {
    for (const client of config.clients ?? []) {
      const isPublic = client.public ?? client.client_secret === undefined;
      deps.clients.upsert({
        id: normalizeId(client.client_id),
        // Shown on the sign-in page: without characters that disguise it (src/domain/display-text.ts).
        name: cleanDisplayText(client.name ?? 'Client') || 'Client',
        secretHash: client.client_secret === undefined ? null : sha256Hex(client.client_secret),
        isPublic,
        redirectUris: client.redirect_uris,
        createdAt: deps.clients.findById(normalizeId(client.client_id))?.createdAt ?? now,
      });
    }

    for (const lock of config.locks ?? []) {
      // No index here: the platform and `serve` pass the config with the entries they left out removed.
      const skip = (fields: string): void => {
        deps.logger.error(`Lock "${lock.name}" is left out: ${fields}. The other locks run.`);
      };
      // Checked again here: callers other than the platform and `serve` may pass a config unchecked.
      const problems = lockEntryProblems(lock);
      if (problems.length > 0) {
        skip(problems.map((problem) => `${problem.field.replace(/^\//, '')}: ${problem.message}`).join('; '));
        continue;
      }
      const resolved = resolveLockId(lock, deps.locks);
      if ('error' in resolved) {
        skip(resolved.error);
        continue;
      }
      const { id } = resolved;
      const twin = accepted.findIndex((other) => other.id === id);
      if (twin >= 0) {
        skip(`id: the same lock (id ${id}) as "${accepted[twin]?.name ?? ''}"; give each lock its own address or id`);
        continue;
      }
      if (resolved.legacy) {
        deps.logger.warn(
          `Lock "${lock.name}" has neither an id nor an address: it keeps the id ${id} it was given from its name. ` +
            `Add "id": "${id}" to its entry, so that renaming it keeps its eKeys and history.`,
        );
      }
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
      const existing = deps.locks.findStored(id);
      if (existing?.retired === true) deps.logger.info(`Lock "${lock.name}" is configured again: its eKeys and history are back.`);
      deps.locks.upsert({
        id,
        // Shown to every holder, in HomeKit and in invitations: without characters that disguise it.
        name: cleanDisplayText(lock.name) || lock.name,
        family: lock.family ?? DEFAULT_LOCK_FAMILY,
        bleAddress: lock.address?.toUpperCase() ?? null,
        // A family that shares a key with its locks keeps it in the store (our profile's `key`).
        lockKey: familyDescriptor(lock.family ?? DEFAULT_LOCK_FAMILY)?.storedKey?.(lock)?.toLowerCase() ?? null,
        timeZone: lock.time_zone ?? hostTimeZone(),
        ownerId: owner.id,
        overBluetooth: (lock.gateway ?? true) && lock.address !== undefined,
        keypad: lock.keypad === true,
        boltState: existing?.boltState ?? 'unknown',
        batteryLevel: existing?.batteryLevel ?? null,
        lastSeenAt: existing?.lastSeenAt ?? null,
        lastActivitySequence: existing?.lastActivitySequence ?? 0,
        createdAt: existing?.createdAt ?? now,
      });
      deps.locks.ensureOwnerKey(id, owner.id, newId(), now);
      accepted.push({ ...lock, id });
    }

    const keep = [...accepted.map((lock) => lock.id), ...(deps.keepLockIds ?? [])];
    for (const retired of deps.locks.retireAllExcept(keep, now)) {
      deps.logger.info(
        `Lock "${retired.name}" is no longer configured: it leaves HomeKit and the lock lists; its eKeys and history are kept and return if it is configured again.`,
      );
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
  return { ...config, locks: accepted };
}
