import { randomBytes } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { newId } from '../domain/ids.js';
import { HASHED_AT_FIRST_SIGN_IN } from '../auth/password-check.js';
import { newToken, sha256Hex } from '../auth/secrets.js';
import type { UserRepository } from '../store/user-repository.js';
import type { ClientRepository } from '../store/client-repository.js';
import type { LockRepository } from '../store/lock-repository.js';
import type { SettingsRepository } from '../store/settings-repository.js';
import { hostTimeZone } from '../config/time-zone.js';
import { DEFAULT_LOCK_FAMILY, LOCK_FAMILIES, familyModule } from '../families/registry.js';
import type { DemoLockSecrets, DemoLockSpec, FamilyDemo } from '../families/lock-family-module.js';
import type { EventRepository } from '../store/event-repository.js';
import { seedDemoHistory } from './demo-history.js';

/** The demo household as printed on the demo's first stdout line (docs/design.md §6), minus `base_url`. */
export interface DemoHousehold {
  clients: { client_id: string; client_secret: string; redirect_uri: string }[];
  users: { id: string; email: string; password: string; name: string }[];
  locks: { id: string; name: string; owner_id: string; gateway: boolean; family: string }[];
}

export type { DemoLockSecrets } from '../families/lock-family-module.js';

/** The gateway's own name in the user list of a demo lock that keeps one (a tap naming it is refused). */
export const DEMO_GATEWAY_AUTHORIZATION = 'ekey-locks';

/**
 * The demo's links of lock-side users to its owner (docs/design.md §4b), as config
 * `locks[].nuki_users` would give them: on each demo lock whose family keeps its own users, the
 * family's demo user ("Olivia's iPhone") is the owner. Lock ids lower-case, as the runtime looks them up.
 */
export function demoUserLinks(household: DemoHousehold): Map<string, Map<string, string>> {
  const links = new Map<string, Map<string, string>>();
  const owner = household.users[0];
  if (owner === undefined) return links;
  for (const lock of household.locks) {
    const linked = familyModule(lock.family)?.demo?.linkedUser;
    if (linked !== undefined) links.set(lock.id.toLowerCase(), new Map([[linked, owner.email]]));
  }
  return links;
}

interface StoredDemo {
  /** Households stored before the Nuki came have no `family` on their locks. */
  household: Omit<DemoHousehold, 'locks'> & { locks: (Omit<DemoHousehold['locks'][number], 'family'> & { family?: string })[] };
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

/** One lock of the household, as its family's demo facet describes it. */
interface DemoLockPlan {
  family: string;
  spec: DemoLockSpec;
  demo: FamilyDemo;
}

/**
 * The household's locks, from every family's demo facet (src/families/lock-family-module.ts
 * `demo`), in the order of docs/design.md §6 (each spec's `order`). The families' modules must be
 * loaded (src/families/registry.ts `loadFamilyModules`).
 */
function demoLockPlans(): DemoLockPlan[] {
  return LOCK_FAMILIES.flatMap((descriptor) => {
    const demo = familyModule(descriptor.id)?.demo;
    return demo === undefined ? [] : demo.locks.map((spec) => ({ family: descriptor.id, spec, demo }));
  }).sort((a, b) => a.spec.order - b.spec.order);
}

/**
 * Seeds the demo household once (one owner with the demo locks every family's demo facet brings —
 * docs/design.md §6: Front Door, Garden Gate without a gateway connection, Back Door, Building
 * Door, … — three more users with no keys; one OAuth client) and returns it. On a data folder that
 * already holds it, nothing new is seeded and the same ids and passwords come back; a household
 * seeded before a family's demo lock existed gains it (and the `family` fields) once, listed after
 * the locks it had. The demo's plain passwords and client secret are kept
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
  const seeded = demoLockPlans().map((plan) => newDemoLock(plan, owner.id));
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
  plan: DemoLockPlan;
}

function newDemoLock(plan: DemoLockPlan, ownerId: string): SeededLock {
  const id = newId();
  const { spec } = plan;
  const secrets: DemoLockSecrets = { ...plan.demo.newSecrets(), id, address: spec.address };
  return { lock: { id, name: spec.name, owner_id: ownerId, gateway: spec.overBluetooth, family: plan.family }, secrets, plan };
}

/** Stores a demo lock and its owner key; returns the key's id. */
function storeDemoLock(deps: DemoDependencies, entry: SeededLock, ownerId: string, now: number): string {
  deps.locks.upsert({
    id: entry.lock.id,
    name: entry.lock.name,
    family: entry.plan.family,
    bleAddress: entry.secrets.address,
    lockKey: entry.plan.demo.storedKeyOf(entry.secrets),
    timeZone: hostTimeZone(),
    ownerId,
    overBluetooth: entry.lock.gateway,
    keypad: entry.plan.spec.keypad,
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
  const locks = stored.household.locks.map((lock) => ({ ...lock, family: lock.family ?? DEFAULT_LOCK_FAMILY }));
  const missing = demoLockPlans().filter((plan) => !locks.some((lock) => lock.name === plan.spec.name));
  const lockSecrets = [...stored.lockSecrets];
  if (owner === undefined || (missing.length === 0 && stored.household.locks.every((lock) => lock.family !== undefined))) {
    return { household: { ...stored.household, locks }, lockSecrets };
  }
  const now = deps.clock.now();
  deps.transaction(() => {
    for (const plan of missing) {
      const entry = newDemoLock(plan, owner.id);
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
