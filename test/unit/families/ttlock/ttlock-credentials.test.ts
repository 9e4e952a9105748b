import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TtlockCredentialFile, type StoredTtlockCredentials } from '../../../../src/families/ttlock/ttlock-credential-file.js';
import { decodeAesKeyText, decodeObfuscatedNumber, LockDataError, parseLockData } from '../../../../src/families/ttlock/ttlock-lock-data.js';
import { DEFAULT_TTLOCK_VERSION } from '../../../../src/families/ttlock/protocol/ttlock-frame.js';

/**
 * Where a TTLock's secrets live (docs/design.md §4f): the credential file (0600, atomic, errors
 * that name the field, never the value) and the import of the TTLock app's record of a lock.
 */

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const made = mkdtempSync(join(tmpdir(), 'ekey-ttlock-cred-'));
  folders.push(made);
  return made;
}

const KEY = Buffer.from('f9cd6721308bda8f17ec4dfdafeec16b', 'hex');

function stored(address: string): StoredTtlockCredentials {
  return { address, aesKey: KEY, adminPs: 0x26d2fc7b, unlockKey: 0x0109fe80, uid: 0x02acd30b, lockFlagPos: 0, version: { ...DEFAULT_TTLOCK_VERSION, group: 0x000f }, adminKeypadCode: '1234567', origin: 'paired', addedAt: Date.parse('2026-06-13T10:00:00Z') };
}

describe('the TTLock credential file', () => {
  it('writes mode 0600 and reads back every field', () => {
    const file = new TtlockCredentialFile(folder());
    file.write(stored('aa:bb:cc:dd:ee:01'));
    file.write(stored('AA:BB:CC:DD:EE:02'));
    expect(file.mode()).toBe(0o600);
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
    expect(file.read('aa:bb:cc:dd:ee:01')).toEqual({ ...stored('AA:BB:CC:DD:EE:01') });
    expect([...file.readAll().keys()]).toEqual(['AA:BB:CC:DD:EE:01', 'AA:BB:CC:DD:EE:02']);
  });

  it('is empty without a file; a broken one is an error that names the file and the field, never the key', () => {
    const dir = folder();
    const file = new TtlockCredentialFile(dir);
    expect(file.readAll().size).toBe(0);
    writeFileSync(file.path, '{not json');
    expect(() => file.readAll()).toThrow(/not valid JSON/);
    const broken = { version: 1, locks: { 'AA:BB:CC:DD:EE:01': { aes_key: 'f9cd6721', admin_ps: 1, unlock_key: 2, uid: 3, version: { protocol_type: 5, protocol_version: 3, scene: 2, group: 1, org: 1 } } } };
    writeFileSync(file.path, JSON.stringify(broken));
    let message = '';
    try {
      file.readAll();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('aes_key');
    expect(message).not.toContain('f9cd6721');
  });
});

describe('the app’s obfuscated numbers', () => {
  it('decodes the public Home Assistant forum adminPs (the vector ttlock-rs credential.rs cites) to 659525046', () => {
    expect(decodeObfuscatedNumber('NjgsNjYsNjUsNzcsNjUsNzAsNjUsNjgsNjQsNjYsMTA=', 'adminPwd')).toBe(659_525_046);
  });

  it('decodes ttlock-ble’s test vectors, whose mask depends on the seed and the count (not a fixed 0x74)', () => {
    expect(decodeObfuscatedNumber('MTAzLDEwMSw5OSw5NywxMTEsMTAyLDEwMCw5OCw5NiwxMTAsNDE=', 'x')).toBe(246_813_579);
    expect(decodeObfuscatedNumber('MTExLDExMCwxMDgsMTA2LDEwNCwxMDIsMTA5LDEwNywxMDUsMTAzLDMz', 'x')).toBe(135_792_468);
    expect(decodeObfuscatedNumber('MTU4LDE1MSwxNTksMTU3LDE1NSwxNTMsMTE1', 'x')).toBe(91_357);
    expect(decodeObfuscatedNumber(' NjgsNjYsNjUsNzcsNjUsNzAsNjUsNjgsNjQsNjYsMTA=. ', 'x')).toBe(659_525_046);
  });

  it('reads aesKeyStr as comma-separated hex bytes (ttlock-ble’s vector) or 32 hex digits', () => {
    expect(decodeAesKeyText('a1,b2,c3,d4,e5,f6,07,18,29,3a,4b,5c,6d,7e,8f,90', 'aesKeyStr').toString('hex')).toBe('a1b2c3d4e5f60718293a4b5c6d7e8f90');
    expect(decodeAesKeyText('A1B2C3D4E5F60718293A4B5C6D7E8F90', 'aesKeyStr').toString('hex')).toBe('a1b2c3d4e5f60718293a4b5c6d7e8f90');
    expect(() => decodeAesKeyText('a1,b2', 'aesKeyStr')).toThrow(LockDataError);
  });
});

describe('parseLockData: the shapes a lock record comes in', () => {
  const cloud = {
    lockId: 123,
    lockMac: 'aa:bb:cc:dd:ee:ff',
    aesKeyStr: 'a1,b2,c3,d4,e5,f6,07,18,29,3a,4b,5c,6d,7e,8f,90',
    adminPwd: 'NjgsNjYsNjUsNzcsNjUsNzAsNjUsNjgsNjQsNjYsMTA=',
    lockKey: 'MTAzLDEwMSw5OSw5NywxMTEsMTAyLDEwMCw5OCw5NiwxMTAsNDE=',
    lockFlagPos: 0,
    lockVersion: { protocolType: 5, protocolVersion: 3, scene: 2, groupId: 15, orgId: 1 },
  };

  it('the TTLock cloud / Open API lock record, its numbers decoded', () => {
    expect(parseLockData(JSON.stringify(cloud))).toEqual({
      address: 'AA:BB:CC:DD:EE:FF',
      aesKey: Buffer.from('a1b2c3d4e5f60718293a4b5c6d7e8f90', 'hex'),
      adminPs: 659_525_046,
      unlockKey: 246_813_579,
      lockFlagPos: 0,
      version: { protocolType: 5, protocolVersion: 3, scene: 2, group: 15, org: 1 },
      uid: null,
    });
  });

  it('ttlock-rs’s lockData.json (its sample), a list to choose from by address, and {"list": […]}', () => {
    const sample = [{ address: 'AA:BB:CC:DD:EE:FF', private_data: { aes_key: '00112233445566778899aabbccddeeff', admin_ps: 12345678, unlock_key: 12345678 } }];
    expect(parseLockData(JSON.stringify(sample))).toMatchObject({ address: 'AA:BB:CC:DD:EE:FF', adminPs: 12_345_678, unlockKey: 12_345_678, version: DEFAULT_TTLOCK_VERSION });
    const two = { list: [cloud, { ...cloud, lockMac: '11:22:33:44:55:66' }] };
    expect(() => parseLockData(JSON.stringify(two))).toThrow(/2 locks: choose one with --address/);
    expect(parseLockData(JSON.stringify(two), '11:22:33:44:55:66').address).toBe('11:22:33:44:55:66');
    expect(() => parseLockData(JSON.stringify(two), '00:00:00:00:00:01')).toThrow(/no lock with the address/);
  });

  it('the kind3r add-on’s export', () => {
    const addOn = { address: 'aa:bb:cc:dd:ee:01', privateData: { aesKey: '00112233445566778899aabbccddeeff', admin: { adminPs: '87654321', unlockKey: 11223344 } } };
    expect(parseLockData(JSON.stringify(addOn))).toMatchObject({ address: 'AA:BB:CC:DD:EE:01', adminPs: 87_654_321, unlockKey: 11_223_344 });
  });

  it('refuses what it cannot use with one sentence that names the field, never a value', () => {
    expect(() => parseLockData('not json')).toThrow('the file is not JSON');
    expect(() => parseLockData('A'.repeat(200))).toThrow(/official SDK's encoded lockData/);
    expect(() => parseLockData(JSON.stringify({ name: 'x' }))).toThrow(/no lock record found/);
    expect(() => parseLockData(JSON.stringify({ ...cloud, lockKey: 'bm9wZQ==' }))).toThrow(/"lockKey"/);
    expect(() => parseLockData(JSON.stringify({ ...cloud, lockMac: 'nope' }))).toThrow(/"lockMac"/);
    expect(() => parseLockData(JSON.stringify({ ...cloud, lockVersion: { protocolType: 3, protocolVersion: 1 } }))).toThrow(/only V3 locks/);
    let message = '';
    try {
      parseLockData(JSON.stringify({ ...cloud, aesKeyStr: 'f9cd6721' }));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('aesKeyStr');
    expect(message).not.toContain('f9cd6721');
  });

  it('reads the file as the import does: a real file, unchanged', () => {
    const path = join(folder(), 'lock.json');
    writeFileSync(path, JSON.stringify(cloud));
    expect(parseLockData(readFileSync(path, 'utf8')).adminPs).toBe(659_525_046);
  });
});
