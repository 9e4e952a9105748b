import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceRoot } from '../../../src/service-root.js';
import { configuredLockId, legacyNameLockId } from '../../../src/config/config-sync.js';
import { checkPluginConfig, type LockConfig, type PluginConfig } from '../../../src/config/plugin-config.js';
import { ManualClock } from '../../support/manual-clock.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { lockRecord } from '../../support/lock-record.js';

/**
 * The configuration degrades gracefully (docs/design.md §9), with the real service on a SQLite file,
 * restarted on the same data folder as a user edits the config between restarts.
 */
const OWNER = 'owner@example.com';
const FRIEND = 'friend@example.com';
const key = (fill: string): string => fill.repeat(64);
const FRONT: LockConfig = { name: 'Front Door', address: 'D0:E1:00:00:10:01', key: key('a'), time_zone: 'Europe/Berlin', owner_email: OWNER, gateway: false };
const SHED: LockConfig = { name: 'Shed', address: 'D0:E1:00:00:10:02', key: key('b'), time_zone: 'UTC', owner_email: OWNER, gateway: false };

let dataDir: string;
let clock: ManualClock;
let open: ServiceRoot | undefined;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'ekey-config-'));
  clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
});

afterEach(async () => {
  await open?.close();
  open = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the service as the platform does: the config is checked, then opened; returns the log. */
async function start(raw: unknown): Promise<{ service: ServiceRoot; logger: RecordingLogger }> {
  await open?.close();
  const logger = new RecordingLogger();
  const check = checkPluginConfig(raw);
  for (const line of check.problems) logger.error(line);
  if (check.config === undefined) throw new Error(`config refused: ${JSON.stringify(check.errors)}`);
  const config: PluginConfig = { ...check.config, bluetooth: { transport: 'simulator' } };
  open = await ServiceRoot.open({ config, dataDir, logger, clock, demo: false });
  return { service: open, logger };
}

const errors = (logger: RecordingLogger): string[] => logger.lines.filter((line) => line.level === 'error').map((line) => line.message);
const names = (service: ServiceRoot): string[] => service.repositories.locks.list().map((lock) => lock.name);
const ownerId = (service: ServiceRoot): string => service.repositories.users.findByEmail(OWNER)?.id ?? '';

describe('a lock entry that fails validation', () => {
  it('is left out with one error line naming the lock and the field; the other locks run', async () => {
    const { service, logger } = await start({
      locks: [
        FRONT,
        { ...SHED, time_zone: 'Mars/Olympus_Mons' },
        { name: 'Garage', address: 'not-an-address', key: key('c'), owner_email: OWNER },
        { name: 'Cellar', address: 'D0:E1:00:00:10:04', owner_email: OWNER },
        { name: 'Gate', family: 'zigbee', address: 'D0:E1:00:00:10:05', key: key('d'), owner_email: OWNER },
        { name: 'Barn', owner_email: OWNER },
      ],
    });
    expect(errors(logger)).toEqual([
      expect.stringMatching(/^Lock "Shed" \(locks\[1\]\) is left out: time_zone: "Mars\/Olympus_Mons" is not an IANA time zone/),
      expect.stringMatching(/^Lock "Garage" \(locks\[2\]\) is left out: address: "not-an-address" is not a Bluetooth address like AA:BB:CC:DD:EE:FF\. /),
      expect.stringMatching(/^Lock "Cellar" \(locks\[3\]\) is left out: key: is required for a lock of our profile/),
      expect.stringMatching(/^Lock "Gate" \(locks\[4\]\) is left out: family: /),
      // Valid to the schema, but with nothing to keep its id by when renamed.
      expect.stringMatching(/^Lock "Barn" is left out: id: a lock without an address needs an "id" \(a UUID, for example "[0-9a-f-]{36}"\)/),
    ]);
    expect(names(service)).toEqual(['Front Door']);
    expect(service.services.locks.listForUser(ownerId(service), ownerId(service)).map((lock) => lock.name)).toEqual(['Front Door']);
  });

  it('leaves out a bad setting outside locks[] too, with one line, and never stops the plugin', () => {
    const check = checkPluginConfig({ api: { port: 99999 }, locks: [{ ...FRONT, time_zone: 'Nowhere/Else' }, SHED] });
    expect(check.config).toEqual({ locks: [SHED] });
    expect(check.errors).toEqual([]);
    expect(check.skippedLocks).toEqual([expect.stringMatching(/^Lock "Front Door" \(locks\[0\]\) is left out: time_zone: /)]);
    expect(check.problems).toEqual([...check.skippedLocks, 'api.port: must be at most 65535; left out, so its default applies.']);
  });
});

describe('a lock removed from the config', () => {
  it('leaves the lock lists and HomeKit, keeps its eKeys and history, and they return when it comes back', async () => {
    let { service } = await start({ locks: [FRONT, SHED] });
    const shedId = configuredLockId(SHED) ?? '';
    const owner = ownerId(service);
    const friendKey = service.services.ekeys.send(owner, { email: FRIEND, lock_id: shedId, type: 'anytime' }).id;
    const event = service.events.recorder.recordBattery({ lockId: shedId, level: 0.5, timestamp: clock.now() });
    expect(event).not.toBeNull();
    expect(service.lockPort().listLocks().map((lock) => lock.name).sort()).toEqual(['Front Door', 'Shed']);

    let logger: RecordingLogger;
    ({ service, logger } = await start({ locks: [FRONT] }));
    expect(logger.lines.filter((line) => line.message.includes('no longer configured')).map((line) => line.message)).toEqual([
      'Lock "Shed" is no longer configured: it leaves HomeKit and the lock lists; its eKeys and history are kept and return if it is configured again.',
    ]);
    expect(names(service)).toEqual(['Front Door']);
    expect(service.lockPort().listLocks().map((lock) => lock.name)).toEqual(['Front Door']);
    expect(service.services.locks.listForUser(owner, owner).map((lock) => lock.name)).toEqual(['Front Door']);
    // Nobody reaches it: the API answers 404 as for a lock that never existed.
    expect(() => service.services.locks.findVisible(owner, shedId)).toThrow(expect.objectContaining({ status: 404 }));
    // Kept in the store.
    expect(service.repositories.ekeys.findById(friendKey)).toMatchObject({ status: 'pending', lock_id: shedId });
    expect((service.db.prepare('SELECT COUNT(*) AS n FROM lock_events WHERE lock_id = ?').get(shedId) as { n: number }).n).toBe(1);

    ({ service, logger } = await start({ locks: [FRONT, { ...SHED, name: 'Garden Shed' }] }));
    expect(logger.lines.map((line) => line.message)).toContain('Lock "Garden Shed" is configured again: its eKeys and history are back.');
    expect(names(service).sort()).toEqual(['Front Door', 'Garden Shed']);
    expect(service.services.locks.findVisible(owner, shedId).lock.name).toBe('Garden Shed');
    expect(service.repositories.ekeys.findById(friendKey)?.lock_id).toBe(shedId);
    expect(service.events.query.listJson(owner, shedId, {})).toContain(event?.id ?? 'missing');
  });
});

describe('a lock id never depends on its name', () => {
  it('a renamed lock keeps its id, keys and history', async () => {
    let { service } = await start({ locks: [FRONT] });
    const id = configuredLockId(FRONT) ?? '';
    const owner = ownerId(service);
    const friendKey = service.services.ekeys.send(owner, { email: FRIEND, lock_id: id, type: 'guest' }).id;
    ({ service } = await start({ locks: [{ ...FRONT, name: 'Main Entrance' }] }));
    expect(service.repositories.locks.list().map((lock) => [lock.id, lock.name])).toEqual([[id, 'Main Entrance']]);
    expect(service.repositories.ekeys.findById(friendKey)?.lock_id).toBe(id);
  });

  it('a lock stored by an earlier version under its name-derived id keeps that id, with a warning saying which id to write into the config', async () => {
    const old: LockConfig = { name: 'Pantry', time_zone: 'UTC', owner_email: OWNER };
    const legacyId = legacyNameLockId('Pantry');
    // What versions before 0.2 stored for this entry.
    let { service } = await start({ locks: [] });
    service.repositories.users.insert({ id: '7d3c8a0e-0000-4000-8000-000000000001', email: OWNER, name: 'Owner', passwordHash: null, ekeyQuota: null, canSendEkeys: true, createdAt: clock.now() });
    service.repositories.locks.upsert(lockRecord({ id: legacyId, name: 'Pantry', ownerId: '7d3c8a0e-0000-4000-8000-000000000001', overBluetooth: false, createdAt: clock.now() }));
    let logger: RecordingLogger;
    ({ service, logger } = await start({ locks: [old] }));
    expect(service.repositories.locks.list().map((lock) => lock.id)).toEqual([legacyId]);
    expect(logger.lines.filter((line) => line.level === 'warn').map((line) => line.message)).toContain(
      `Lock "Pantry" has neither an id nor an address: it keeps the id ${legacyId} it was given from its name. Add "id": "${legacyId}" to its entry, so that renaming it keeps its eKeys and history.`,
    );
    // Following the advice, it can be renamed.
    ({ service, logger } = await start({ locks: [{ ...old, id: legacyId.toUpperCase(), name: 'Larder' }] }));
    expect(service.repositories.locks.list().map((lock) => [lock.id, lock.name])).toEqual([[legacyId, 'Larder']]);
    expect(errors(logger)).toEqual([]);
  });
});
