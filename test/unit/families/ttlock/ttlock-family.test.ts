import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockEntryProblems } from '../../../../src/config/plugin-config.js';
import { generateDoorCode, isValidDoorCode } from '../../../../src/domain/door-code.js';
import { capabilitiesOf, commandTypesOf, doorCodeRulesOf, familyModule, loadFamilyModules } from '../../../../src/families/registry.js';
import { TtlockCredentialFile } from '../../../../src/families/ttlock/ttlock-credential-file.js';
import { DEFAULT_TTLOCK_VERSION } from '../../../../src/families/ttlock/protocol/ttlock-frame.js';

/**
 * The TTLock family as the rest of the house sees it (docs/design.md §2, §4f): its config entry,
 * its capabilities and door-code rules, and the drivers its module builds — from the demo's
 * secrets, from the credential file, or unpaired with the sentence that says what to do.
 */

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const base = { name: 'Side Door', owner_email: 'olivia@example.com', family: 'ttlock' };
const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
type LockOf = Parameters<ReturnType<NonNullable<ReturnType<typeof familyModule>>['driverFactory']>>[0];
const lock = (address: string): LockOf => ({ id: 'x', name: 'Side Door', family: 'ttlock', bleAddress: address, timeZone: 'Europe/Berlin' }) as LockOf;

describe('the TTLock family', () => {
  it('takes an entry with an address, a keypad and no key (it is paired)', () => {
    expect(lockEntryProblems({ ...base, address: 'AA:BB:CC:DD:EE:05', keypad: true })).toEqual([]);
    expect(lockEntryProblems({ ...base, address: 'AA:BB:CC:DD:EE:05', key: 'a'.repeat(64) })).toEqual([{ field: '/key', message: expect.stringContaining('not used by a TTLock') as unknown }]);
    expect(lockEntryProblems(base)).toEqual([{ field: '/address', message: 'is required for a TTLock' }]);
  });

  it('runs lock and unlock; has a keypad; its bolt state is assumed', () => {
    expect(commandTypesOf('ttlock')).toEqual(['lock', 'unlock']);
    expect(capabilitiesOf('ttlock')).toEqual({ keypad: true, doorSensor: false, opener: false, ownUsers: false, boltAssumed: true });
  });

  it('draws six-digit codes with 0 allowed; its keypad holds a date range only and cannot switch a code off', () => {
    const rules = doorCodeRulesOf('ttlock');
    if (rules === undefined) throw new Error('no rules');
    expect(rules).toMatchObject({ length: 6, digits: '0123456789', forbiddenPrefixes: [], weeklyWindow: false, canDisableCodes: false });
    let draw = 0;
    const zeros = generateDoorCode(new Set(), rules, () => (draw++ < 6 ? 0 : 1));
    expect(zeros).toBe('000000');
    expect(isValidDoorCode('012345', rules)).toBe(true);
    expect(isValidDoorCode('12345', rules)).toBe(false);
  });

  it('builds no usable driver for an unpaired lock, and says what to do', async () => {
    await loadFamilyModules(['ttlock']);
    const driver = familyModule('ttlock')?.driverFactory({ dataDir: undefined, logger })(lock('AA:BB:CC:DD:EE:05'));
    expect(driver?.family).toBe('ttlock');
    expect(driver?.unusableReason).toContain('this TTLock is not paired yet');
    expect(driver?.unusableReason).toContain('ekey-locks ttlock pair --address AA:BB:CC:DD:EE:05');
  });

  it('builds the driver from the credential file, and from the demo’s secrets', async () => {
    await loadFamilyModules(['ttlock']);
    const dataDir = mkdtempSync(join(tmpdir(), 'ekey-ttlock-family-'));
    folders.push(dataDir);
    new TtlockCredentialFile(dataDir).write({
      address: 'AA:BB:CC:DD:EE:06',
      aesKey: Buffer.alloc(16, 7),
      adminPs: 1,
      unlockKey: 2,
      uid: 3,
      lockFlagPos: 0,
      version: DEFAULT_TTLOCK_VERSION,
      adminKeypadCode: null,
      origin: 'imported',
      addedAt: 0,
    });
    const module = familyModule('ttlock');
    expect(module?.driverFactory({ dataDir, logger })(lock('aa:bb:cc:dd:ee:06'))?.unusableReason).toBeNull();
    expect(module?.driverFactory({ dataDir, logger })(lock('AA:BB:CC:DD:EE:07'))?.unusableReason).toContain('not paired yet');
    const demo = module?.driverFactory({
      dataDir: undefined,
      logger,
      demoSecrets: () => ({ id: 'x', address: 'AA:BB:CC:DD:EE:05', ttlock: { aesKey: '01'.repeat(16), adminPs: 1, unlockKey: 2, uid: 3 } }),
    })(lock('AA:BB:CC:DD:EE:05'));
    expect(demo?.unusableReason).toBeNull();
    expect(JSON.stringify(demo?.profile)).toContain('00001910');
    expect(module?.secretFiles).toEqual(['ttlock-credentials.json']);
  });

  it('says so when the credential file cannot be read, naming the file, never its content', async () => {
    await loadFamilyModules(['ttlock']);
    const dataDir = mkdtempSync(join(tmpdir(), 'ekey-ttlock-family-'));
    folders.push(dataDir);
    writeFileSync(join(dataDir, 'ttlock-credentials.json'), '{"version":1,"locks":{"AA:BB:CC:DD:EE:06":{"aes_key":"secretsecret"}}}');
    const driver = familyModule('ttlock')?.driverFactory({ dataDir, logger })(lock('AA:BB:CC:DD:EE:06'));
    expect(driver?.unusableReason).toContain('ttlock-credentials.json');
    expect(driver?.unusableReason).not.toContain('secretsecret');
  });
});
