import { randomBytes } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import { hashPassword } from '../auth/password.js';
import { newToken, sha256Hex } from '../auth/secrets.js';
import type { UserRepository } from '../store/user-repository.js';
import type { ClientRepository } from '../store/client-repository.js';
import type { LockRepository } from '../store/lock-repository.js';
import type { SettingsRepository } from '../store/settings-repository.js';
import { hostTimeZone } from '../config/time-zone.js';

/** The demo household as printed on the demo's first stdout line (DESIGN §6), minus `base_url`. */
export interface DemoHousehold {
  clients: { client_id: string; client_secret: string; redirect_uri: string }[];
  users: { id: string; email: string; password: string; name: string }[];
  locks: { id: string; name: string; owner_id: string; gateway: boolean }[];
}

/** What the simulated gateway needs to know about a demo lock (never printed). */
export interface DemoLockSecrets {
  id: string;
  address: string;
  key: string;
}

interface StoredDemo {
  household: DemoHousehold;
  lockSecrets: DemoLockSecrets[];
}

const SETTINGS_KEY = 'demo_household';
export const DEMO_REDIRECT_URI = 'http://localhost:8080/callback';

const DEMO_USERS = [
  { name: 'Olivia Owner', email: 'olivia@example.com' },
  { name: 'Alex Adams', email: 'alex@example.com' },
  { name: 'Blake Brown', email: 'blake@example.com' },
  { name: 'Casey Clark', email: 'casey@example.com' },
] as const;

const demoPassword = (): string => `demo-${randomBytes(6).toString('base64url')}`;

export interface DemoDependencies {
  users: UserRepository;
  clients: ClientRepository;
  locks: LockRepository;
  settings: SettingsRepository;
  clock: Clock;
  /** Runs a function in one SQLite transaction: the household is seeded whole or not at all. */
  transaction: <T>(work: () => T) => T;
}

/**
 * Seeds the demo household once (one owner with two locks, one without a gateway connection;
 * three more users with no keys; one OAuth client) and returns it. On a data folder that already
 * holds it, nothing new is seeded and the same ids and passwords come back. The demo's plain
 * passwords and client secret are kept in the settings table on purpose: the demo prints them.
 */
export async function ensureDemoHousehold(deps: DemoDependencies): Promise<{ household: DemoHousehold; lockSecrets: DemoLockSecrets[] }> {
  const stored = deps.settings.get(SETTINGS_KEY) as StoredDemo | undefined;
  if (stored) return stored;

  const now = deps.clock.now();
  const users: DemoHousehold['users'] = [];
  const hashes: string[] = [];
  for (const person of DEMO_USERS) {
    const password = demoPassword();
    users.push({ id: newId(), email: person.email, password, name: person.name });
    hashes.push(await hashPassword(password));
  }
  const owner = users[0];
  if (!owner) throw new Error('demo household has no owner');
  const client = { client_id: newId(), client_secret: newToken(), redirect_uri: DEMO_REDIRECT_URI };
  const lockSpecs = [
    { name: 'Front Door', gateway: true, address: 'D0:E1:00:00:00:01' },
    { name: 'Garden Gate', gateway: false, address: 'D0:E1:00:00:00:02' },
  ];
  const locks: DemoHousehold['locks'] = lockSpecs.map((spec) => ({ id: newId(), name: spec.name, owner_id: owner.id, gateway: spec.gateway }));
  const lockSecrets: DemoLockSecrets[] = lockSpecs.map((spec, index) => ({
    id: locks[index]?.id ?? newId(),
    address: spec.address,
    key: randomBytes(32).toString('hex'),
  }));

  deps.transaction(() => {
    users.forEach((user, index) => {
      deps.users.insert({
        id: user.id,
        email: user.email,
        name: user.name,
        passwordHash: hashes[index] ?? null,
        ekeyQuota: null,
        canSendEkeys: true,
        createdAt: now,
      });
    });
    deps.clients.upsert({
      id: client.client_id,
      name: 'Demo app',
      secretHash: sha256Hex(client.client_secret),
      isPublic: false,
      redirectUris: [client.redirect_uri],
      createdAt: now,
    });
    locks.forEach((lock, index) => {
      const secrets = lockSecrets[index];
      deps.locks.upsert({
        id: lock.id,
        name: lock.name,
        bleAddress: secrets?.address ?? null,
        lockKey: secrets?.key ?? null,
        timeZone: hostTimeZone(),
        ownerId: owner.id,
        family: 'ekey',
        hasGateway: lock.gateway,
        boltState: 'unknown',
        batteryLevel: null,
        lastSeenAt: null,
        lastActivitySequence: 0,
        createdAt: now,
      });
      deps.locks.ensureOwnerKey(lock.id, owner.id, newId(), now);
    });
    deps.settings.set(SETTINGS_KEY, { household: { clients: [client], users, locks }, lockSecrets } satisfies StoredDemo);
  });
  return { household: { clients: [client], users, locks }, lockSecrets };
}
