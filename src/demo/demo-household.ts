import { randomBytes, randomInt } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import { HASHED_AT_FIRST_SIGN_IN } from '../auth/password-check.js';
import { newToken, sha256Hex } from '../auth/secrets.js';
import type { UserRepository } from '../store/user-repository.js';
import type { ClientRepository } from '../store/client-repository.js';
import type { LockRepository } from '../store/lock-repository.js';
import type { SettingsRepository } from '../store/settings-repository.js';
import { hostTimeZone } from '../config/time-zone.js';
import { lockFamily, type LockFamilyId } from '../families/registry.js';
import type { EventRepository } from '../store/event-repository.js';
import { seedDemoHistory } from './demo-history.js';

/** The demo household as printed on the demo's first stdout line (docs/design.md §6), minus `base_url`. */
export interface DemoHousehold {
  clients: { client_id: string; client_secret: string; redirect_uri: string }[];
  users: { id: string; email: string; password: string; name: string }[];
  locks: { id: string; name: string; owner_id: string; gateway: boolean; family: LockFamilyId }[];
}

/** What pairing the demo's simulated Nuki produced (docs/design.md §4b, §6), as if `ekey-locks nuki pair` had run. */
export interface DemoNukiSecrets {
  /** 64 hex digits. */
  sharedKey: string;
  authorizationId: number;
  appId: number;
  securityPin: number;
  nukiId: number;
}

/** What the simulated gateway needs to know about a demo lock (never printed). */
export interface DemoLockSecrets {
  id: string;
  address: string;
  /** Our profile's lock key, 64 hex digits; empty for a Nuki. */
  key: string;
  /** A Nuki's pairing (Back Door, Building Door). */
  nuki?: DemoNukiSecrets;
}

/** The Nuki authorization linked to the demo's owner: a tap naming it is the owner's (docs/design.md §4b). */
export const DEMO_LINKED_AUTHORIZATION = "Olivia's iPhone";
/** Our own authorization's name in the demo Nuki's list. */
/**
 * The demo's Nuki user links (docs/design.md §4b), as config `locks[].nuki_users` would give them: on each
 * demo Nuki, "Olivia's iPhone" is the owner. Lock ids lower-case, as the runtime looks them up.
 */
export function demoNukiUserLinks(household: DemoHousehold): Map<string, Map<string, string>> {
  const links = new Map<string, Map<string, string>>();
  const owner = household.users[0];
  if (owner === undefined) return links;
  for (const lock of household.locks) {
    if (lockFamily(lock.family).keepsOwnUsers) links.set(lock.id.toLowerCase(), new Map([[DEMO_LINKED_AUTHORIZATION, owner.email]]));
  }
  return links;
}

export const DEMO_GATEWAY_AUTHORIZATION = 'ekey-locks';

interface StoredDemo {
  /** Households stored before the Nuki came have no `family` on their locks. */
  household: Omit<DemoHousehold, 'locks'> & { locks: (Omit<DemoHousehold['locks'][number], 'family'> & { family?: LockFamilyId })[] };
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
  /**
   * Where the household's week of history goes (src/demo/demo-history.ts), written once with the
   * household; without it the household starts with an empty history (tests that count events from
   * zero use that).
   */
  events?: EventRepository;
}

/** Our profile's secret: a random 256-bit lock key shared with the simulated lock. */
const sharedLockKey = (): Pick<DemoLockSecrets, 'key' | 'nuki'> => ({ key: randomBytes(32).toString('hex') });

/** A Nuki's pairing, as `ekey-locks nuki pair` would have stored it; no lock key. */
const nukiPairing = (): Pick<DemoLockSecrets, 'key' | 'nuki'> => ({
  key: '',
  nuki: {
    sharedKey: randomBytes(32).toString('hex'),
    authorizationId: randomInt(2, 0x7fff_ffff),
    appId: randomInt(1, 0x7fff_ffff),
    securityPin: randomInt(1000, 10_000),
    nukiId: randomInt(0x1000_0000, 0x7fff_ffff),
  },
});

const LOCK_SPECS: readonly { name: string; gateway: boolean; address: string; family: LockFamilyId; secrets: () => Pick<DemoLockSecrets, 'key' | 'nuki'> }[] = [
  { name: 'Front Door', gateway: true, address: 'D0:E1:00:00:00:01', family: 'ekey', secrets: sharedLockKey },
  { name: 'Garden Gate', gateway: false, address: 'D0:E1:00:00:00:02', family: 'ekey', secrets: sharedLockKey },
  { name: 'Back Door', gateway: true, address: 'D0:E1:00:00:00:03', family: 'nuki', secrets: nukiPairing },
  // docs/design.md §4d: the building's intercom, a Nuki Opener paired as the Smart Lock is.
  { name: 'Building Door', gateway: true, address: 'D0:E1:00:00:00:04', family: 'nuki-opener', secrets: nukiPairing },
];

/** docs/design.md §4c: the demo locks with a Nuki Keypad. */
const DEMO_KEYPAD_LOCKS: ReadonlySet<string> = new Set(['Back Door']);

/**
 * Seeds the demo household once (one owner with four locks — Front Door of our profile, Garden
 * Gate without a gateway connection, Back Door a simulated Nuki Smart Lock, Building Door a
 * simulated Nuki Opener; three more users with no keys; one OAuth client) and returns it. On a
 * data folder that already holds it, nothing new is seeded and the same ids and passwords come
 * back; a household seeded before Back Door or Building Door existed gains them (and the
 * `family` fields) once, listed after the locks it had. The demo's plain passwords and client secret are kept
 * in the settings table on purpose: the demo prints them.
 *
 * The users are stored with {@link HASHED_AT_FIRST_SIGN_IN}: their scrypt hashes (src/auth/password.ts)
 * are made at each one's first sign-in ({@link demoKnownPassword}, src/auth/password-check.ts), not
 * here. A start does no password work, as a start outside the demo does none (docs/performance.md
 * "footprint"). Users of a household stored by an earlier version with no hash yet (a start cut
 * short) are marked the same way.
 */
export function ensureDemoHousehold(deps: DemoDependencies): { household: DemoHousehold; lockSecrets: DemoLockSecrets[] } {
  const seeded = seedDemoHousehold(deps);
  deps.transaction(() => {
    for (const user of seeded.household.users) {
      const current = deps.users.findById(user.id);
      if (current?.passwordHash === null) deps.users.update({ ...current, passwordHash: HASHED_AT_FIRST_SIGN_IN });
    }
  });
  return seeded;
}

/**
 * The demo's printed password of a user still stored as {@link HASHED_AT_FIRST_SIGN_IN}, for the
 * sign-in that hashes it (src/auth/password-check.ts); undefined for anyone else.
 */
export function demoKnownPassword(household: DemoHousehold): (userId: string) => string | undefined {
  const passwords = new Map(household.users.map((user) => [user.id, user.password]));
  return (userId) => passwords.get(userId);
}

/** The household itself: seeded once, else read back (and upgraded). */
function seedDemoHousehold(deps: DemoDependencies): { household: DemoHousehold; lockSecrets: DemoLockSecrets[] } {
  const stored = deps.settings.get(SETTINGS_KEY) as StoredDemo | undefined;
  if (stored) return upgradeHousehold(stored, deps);

  const now = deps.clock.now();
  const users: DemoHousehold['users'] = DEMO_USERS.map((person) => ({ id: newId(), email: person.email, password: demoPassword(), name: person.name }));
  const owner = users[0];
  if (!owner) throw new Error('demo household has no owner');
  const client = { client_id: newId(), client_secret: newToken(), redirect_uri: DEMO_REDIRECT_URI };
  const seeded = LOCK_SPECS.map((spec) => newDemoLock(spec, owner.id));
  const locks = seeded.map((entry) => entry.lock);
  const lockSecrets = seeded.map((entry) => entry.secrets);

  deps.transaction(() => {
    for (const user of users) {
      deps.users.insert({
        id: user.id,
        email: user.email,
        name: user.name,
        // The first sign-in hashes it (demoKnownPassword).
        passwordHash: HASHED_AT_FIRST_SIGN_IN,
        ekeyQuota: null,
        canSendEkeys: true,
        createdAt: now,
      });
    }
    deps.clients.upsert({
      id: client.client_id,
      name: 'Demo app',
      secretHash: sha256Hex(client.client_secret),
      isPublic: false,
      redirectUris: [client.redirect_uri],
      createdAt: now,
    });
    const ownerKeys = seeded.map((entry) => storeDemoLock(deps, entry, owner.id, now));
    if (deps.events !== undefined) {
      const historyLocks = seeded
        .map((entry, index) => ({ id: entry.lock.id, name: entry.lock.name, zone: hostTimeZone(), ownerKeyId: ownerKeys[index] ?? '', gateway: entry.lock.gateway }))
        .filter((lock) => lock.gateway);
      for (const history of seedDemoHistory(deps.events, historyLocks, owner, now)) {
        // The lock's state ends where its history ends: locked, at the last battery reading (if any).
        const lock = deps.locks.findById(history.lockId);
        if (lock) deps.locks.saveState({ id: lock.id, boltState: 'locked', batteryLevel: history.batteryLevel, lastSeenAt: lock.lastSeenAt, lastActivitySequence: lock.lastActivitySequence });
      }
    }
    deps.settings.set(SETTINGS_KEY, { household: { clients: [client], users, locks }, lockSecrets } satisfies StoredDemo);
  });
  return { household: { clients: [client], users, locks }, lockSecrets };
}

interface SeededLock {
  lock: DemoHousehold['locks'][number];
  secrets: DemoLockSecrets;
  family: LockFamilyId;
}

function newDemoLock(spec: (typeof LOCK_SPECS)[number], ownerId: string): SeededLock {
  const id = newId();
  const secrets: DemoLockSecrets = { id, address: spec.address, ...spec.secrets() };
  return { lock: { id, name: spec.name, owner_id: ownerId, gateway: spec.gateway, family: spec.family }, secrets, family: spec.family };
}

/** Stores a demo lock and its owner key; returns the key's id. */
function storeDemoLock(deps: DemoDependencies, entry: SeededLock, ownerId: string, now: number): string {
  deps.locks.upsert({
    id: entry.lock.id,
    name: entry.lock.name,
    family: entry.family,
    bleAddress: entry.secrets.address,
    lockKey: entry.secrets.key === '' ? null : entry.secrets.key,
    timeZone: hostTimeZone(),
    ownerId,
    hasGateway: entry.lock.gateway,
    keypad: DEMO_KEYPAD_LOCKS.has(entry.lock.name),
    boltState: 'unknown',
    batteryLevel: null,
    lastSeenAt: null,
    lastActivitySequence: 0,
    createdAt: now,
  });
  const keyId = newId();
  deps.locks.ensureOwnerKey(entry.lock.id, ownerId, keyId, now);
  return keyId;
}

/** A household stored before Back Door, Building Door (or `family`) existed gains them, once, in one transaction. */
function upgradeHousehold(stored: StoredDemo, deps: DemoDependencies): { household: DemoHousehold; lockSecrets: DemoLockSecrets[] } {
  const owner = stored.household.users[0];
  const locks = stored.household.locks.map((lock) => ({ ...lock, family: lock.family ?? ('ekey' as const) }));
  const missing = LOCK_SPECS.filter((spec) => !locks.some((lock) => lock.name === spec.name));
  const lockSecrets = [...stored.lockSecrets];
  if (owner === undefined || (missing.length === 0 && stored.household.locks.every((lock) => lock.family !== undefined))) {
    return { household: { ...stored.household, locks }, lockSecrets };
  }
  const now = deps.clock.now();
  deps.transaction(() => {
    for (const spec of missing) {
      const entry = newDemoLock(spec, owner.id);
      storeDemoLock(deps, entry, owner.id, now);
      locks.push(entry.lock);
      lockSecrets.push(entry.secrets);
    }
    deps.settings.set(SETTINGS_KEY, { household: { ...stored.household, locks }, lockSecrets } satisfies StoredDemo);
  });
  return { household: { ...stored.household, locks }, lockSecrets };
}

/** The settings key under which the seeded household (ids, printed passwords) is kept. */
export const DEMO_SETTINGS_KEY = SETTINGS_KEY;
