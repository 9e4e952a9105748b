import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NUKI_CREDENTIALS_FILE, NukiCredentialFile, type StoredNukiCredentials } from '../../../../src/families/nuki/nuki-credential-file.js';

const KEY_A = Buffer.from('217fcb0f18caf284e9bdea0b94b83b8d10867ed706bfdedbd2381f4cb3b8f730', 'hex');
const KEY_B = Buffer.alloc(32, 0xab);

function credentials(overrides: Partial<StoredNukiCredentials> = {}): StoredNukiCredentials {
  return {
    address: '54:D2:72:AB:CD:EF',
    sharedKey: KEY_A,
    authorizationId: 2,
    appId: 0x1234,
    idType: 'app',
    authorizationName: 'ekey-locks (Homebridge)',
    lockUuid: '00112233445566778899aabbccddeeff',
    securityPin: 1234,
    pairedAt: Date.parse('2025-03-01T10:00:00.000Z'),
    ...overrides,
  };
}

/** A valid file's content with one entry changed as the test needs. */
function fileText(entry: Record<string, unknown>, version: unknown = 1): string {
  const base = {
    shared_key: KEY_A.toString('hex'),
    authorization_id: 2,
    app_id: 0x1234,
    id_type: 'app',
    authorization_name: 'x',
    lock_uuid: '00',
    security_pin: null,
    paired_at: '2025-03-01T10:00:00.000Z',
  };
  return JSON.stringify({ version, locks: { '54:D2:72:AB:CD:EF': { ...base, ...entry } } });
}

let dataDir: string;
let file: NukiCredentialFile;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'ekey-nuki-credentials-'));
  file = new NukiCredentialFile(dataDir);
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** The error `read` throws, checked to name the file and to hold no key. */
function readError(): string {
  let message: string | undefined;
  try {
    file.readAll();
  } catch (error) {
    message = error instanceof Error ? error.message : String(error);
  }
  if (message === undefined) throw new Error('readAll did not throw');
  expect(message).toContain(file.path);
  for (const key of [KEY_A, KEY_B]) {
    expect(message.toLowerCase()).not.toContain(key.toString('hex'));
    expect(message).not.toContain(key.toString('base64'));
  }
  return message;
}

describe('NukiCredentialFile', () => {
  it('lives in the data folder as nuki-credentials.json', () => {
    expect(file.path).toBe(join(dataDir, NUKI_CREDENTIALS_FILE));
  });

  it('reads an empty map when the file does not exist', () => {
    expect(file.readAll()).toEqual(new Map());
    expect(file.read('54:d2:72:ab:cd:ef')).toBeUndefined();
    expect(file.mode()).toBeNull();
  });

  it('gives back what was written, by address in any case', () => {
    const written = credentials();
    file.write(written);
    expect(file.read('54:d2:72:ab:cd:ef')).toEqual(written);
    expect(new NukiCredentialFile(dataDir).readAll()).toEqual(new Map([[written.address, written]]));
  });

  it('keeps a bridge pairing and a missing PIN', () => {
    const written = credentials({ idType: 'bridge', securityPin: null });
    file.write(written);
    expect(file.read(written.address)).toEqual(written);
  });

  it('stores the address upper case', () => {
    file.write(credentials({ address: '54:d2:72:ab:cd:ef' }));
    expect([...file.readAll().keys()]).toEqual(['54:D2:72:AB:CD:EF']);
  });

  it('replaces the entry of the same lock and keeps the others', () => {
    const other = credentials({ address: 'C0:FF:EE:00:00:01', sharedKey: KEY_B, authorizationId: 7 });
    file.write(credentials());
    file.write(other);
    const again = credentials({ authorizationId: 3, sharedKey: KEY_B, securityPin: null });
    file.write(again);
    expect(file.readAll()).toEqual(
      new Map([
        ['54:D2:72:AB:CD:EF', again],
        ['C0:FF:EE:00:00:01', other],
      ]),
    );
  });

  it('removes one lock', () => {
    file.write(credentials());
    file.write(credentials({ address: 'C0:FF:EE:00:00:01' }));
    expect(file.remove('54:d2:72:ab:cd:ef')).toBe(true);
    expect(file.remove('54:d2:72:ab:cd:ef')).toBe(false);
    expect([...file.readAll().keys()]).toEqual(['C0:FF:EE:00:00:01']);
  });

  describe('protection', () => {
    let umask: number;
    beforeEach(() => {
      umask = process.umask(0o000);
    });
    afterEach(() => {
      process.umask(umask);
    });

    it('writes mode 0600 even with a permissive umask, and creates a missing folder 0700', () => {
      const nested = new NukiCredentialFile(join(dataDir, 'homebridge', 'ekey-locks'));
      nested.write(credentials());
      expect(nested.mode()).toBe(0o600);
      expect(statSync(join(dataDir, 'homebridge', 'ekey-locks')).mode & 0o777).toBe(0o700);
    });

    it('puts mode 0600 back on a file someone opened up', () => {
      file.write(credentials());
      chmodSync(file.path, 0o644);
      file.write(credentials({ authorizationId: 9 }));
      expect(file.mode()).toBe(0o600);
    });

    it('does not reuse a temporary file a crash left behind with another mode', () => {
      const leftover = `${file.path}.${process.pid}.tmp`;
      writeFileSync(leftover, 'half', { mode: 0o666 });
      file.write(credentials());
      expect(file.mode()).toBe(0o600);
      expect(existsSync(leftover)).toBe(false);
    });
  });

  it('replaces the file atomically: the new content under the same name, no temporary file left', () => {
    file.write(credentials());
    const inodeBefore = statSync(file.path).ino;
    file.write(credentials({ authorizationId: 5 }));
    expect(readdirSync(dataDir)).toEqual([NUKI_CREDENTIALS_FILE]);
    // A rename puts a new file in place; an in-place rewrite would keep the inode (and could be seen half-written).
    expect(statSync(file.path).ino).not.toBe(inodeBefore);
    expect(file.read('54:D2:72:AB:CD:EF')?.authorizationId).toBe(5);
  });

  describe('an unusable file is an error that names the file, never the key', () => {
    it.each([
      ['corrupt JSON', `{"version":1,"locks":{"54:D2:72:AB:CD:EF":{"shared_key":"${KEY_A.toString('hex')}"`, /is not valid JSON/],
      ['another version', fileText({}, 2), /unknown format \(expected version 1\)/],
      ['no version', JSON.stringify({ locks: {} }), /unknown format/],
      ['no locks object', JSON.stringify({ version: 1 }), /no "locks" object/],
      ['an entry that is not an object', JSON.stringify({ version: 1, locks: { '54:D2:72:AB:CD:EF': KEY_A.toString('hex') } }), /entry 54:D2:72:AB:CD:EF is not an object/],
      ['a missing shared key', fileText({ shared_key: undefined }), /entry 54:D2:72:AB:CD:EF is incomplete: no valid shared_key/],
      ['a short shared key', fileText({ shared_key: KEY_A.toString('hex').slice(2) }), /no valid shared_key/],
      ['a missing authorization id', fileText({ authorization_id: undefined }), /no valid authorization_id/],
      ['an app id that is no u32', fileText({ app_id: -1 }), /no valid app_id/],
      ['a PIN above 65535', fileText({ security_pin: 70000 }), /invalid security PIN/],
    ])('%s', (_what, text, pattern) => {
      writeFileSync(file.path, text, { mode: 0o600 });
      expect(readError()).toMatch(pattern);
    });

    it('a file that cannot be read (here: a folder in its place, which even root cannot read as a file)', () => {
      mkdirSync(file.path);
      try {
        expect(readError()).toMatch(/cannot read .*: EISDIR/);
      } finally {
        rmSync(file.path, { recursive: true, force: true });
      }
    });

    it('refuses to write over a file it cannot read (the other locks would be lost)', () => {
      writeFileSync(file.path, '{ not json', { mode: 0o600 });
      expect(() => {
        file.write(credentials());
      }).toThrow(/is not valid JSON/);
      expect(readFileSync(file.path, 'utf8')).toBe('{ not json');
    });
  });
});
