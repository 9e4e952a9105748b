import { beforeAll, describe, expect, it } from '@jest/globals';
import { builtCli, runNode } from '../../support/child-process.js';

// Nuki Smart Lock API V2.1 §9 "Read lock state": the shared key and the encrypted request.
const SHARED_KEY = '217fcb0f18caf284e9bdea0b94b83b8d10867ed706bfdedbd2381f4cb3b8f730';
const READ_STATE_REQUEST = '37917F1AF31EC5940705F34D1E5550607D5B2F9FE7D496B6020000001A00670D124926004366532E8D927A33FE84E782A9594D39157D065E';
const READ_STATE_NONCE = '37917f1af31ec5940705f34d1e5550607d5b2f9fe7d496b6';

let cli: string;

beforeAll(() => {
  cli = builtCli();
});

const run = (args: string[]) => runNode(cli, ['nuki', ...args]);

describe('ekey-locks nuki decode', () => {
  it('prints one JSON line for an unencrypted frame', async () => {
    const result = await run(['decode', '0100030027A7']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe('{"encrypted":false,"command":1,"command_name":"Request Data","payload":"0300","crc_ok":true}\n');
  });

  it('decrypts the §9 request with the shared key', async () => {
    const result = await run(['decode', '--shared-key', SHARED_KEY, READ_STATE_REQUEST]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      `{"encrypted":true,"nonce":"${READ_STATE_NONCE}","auth_id":2,"command":1,"command_name":"Request Data","payload":"0c00","crc_ok":true}\n`,
    );
  });

  it.each([
    ['not hex', ['decode', 'xyz1']],
    ['odd hex', ['decode', '0100030027a']],
    ['too short', ['decode', '0100']],
    ['a bad CRC', ['decode', '0100030027a8']],
    ['a bad MAC', ['decode', '--shared-key', 'f'.repeat(64), READ_STATE_REQUEST]],
    ['an encrypted frame too short', ['decode', '--shared-key', SHARED_KEY, '0100030027a7']],
    ['a shared key that is not 64 hex digits', ['decode', '--shared-key', 'abcd', READ_STATE_REQUEST]],
  ])('exits 2 with one "nuki decode:" line and empty stdout for %s', async (_what, args) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^nuki decode: [^\n]+\n$/);
  });

  it('treats a missing frame as a usage error', async () => {
    const result = await run(['decode']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Usage: ekey-locks');
  });
});

describe('ekey-locks nuki encode', () => {
  it('prints the unencrypted frame as hex (command decimal or 0x-hex)', async () => {
    for (const command of ['1', '0x0001', '0X1']) {
      const result = await run(['encode', '--command', command, '--payload', '0300']);
      expect(result).toMatchObject({ code: 0, stdout: '0100030027a7\n', stderr: '' });
    }
  });

  it('reproduces the §9 encrypted request with key, authorization id and nonce', async () => {
    const result = await run(['encode', '--command', '1', '--payload', '0C00', '--shared-key', SHARED_KEY, '--auth-id', '2', '--nonce', READ_STATE_NONCE]);
    expect(result).toMatchObject({ code: 0, stdout: `${READ_STATE_REQUEST.toLowerCase()}\n`, stderr: '' });
  });

  it('round-trips through decode, plain and encrypted', async () => {
    const plain = await run(['encode', '--command', '0x000d', '--payload', '01020304']);
    const decodedPlain = await run(['decode', plain.stdout.trim()]);
    expect(JSON.parse(decodedPlain.stdout)).toEqual({ encrypted: false, command: 13, command_name: 'Lock Action', payload: '01020304', crc_ok: true });

    const nonce = 'ab'.repeat(24);
    const encrypted = await run(['encode', '--command', '12', '--shared-key', SHARED_KEY, '--auth-id', '0x10', '--nonce', nonce]);
    const decodedEncrypted = await run(['decode', '--shared-key', SHARED_KEY, encrypted.stdout.trim()]);
    expect(JSON.parse(decodedEncrypted.stdout)).toEqual({
      encrypted: true,
      nonce,
      auth_id: 16,
      command: 12,
      command_name: 'Keyturner States',
      payload: '',
      crc_ok: true,
    });
  });

  it.each([
    ['a payload that is not hex', ['encode', '--command', '1', '--payload', 'zz']],
    ['a command out of range', ['encode', '--command', '65536']],
    ['a nonce of the wrong size', ['encode', '--command', '1', '--shared-key', SHARED_KEY, '--auth-id', '2', '--nonce', 'abcd']],
  ])('exits 2 with one "nuki encode:" line for %s', async (_what, args) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^nuki encode: [^\n]+\n$/);
  });

  it('treats half of the encryption options as a usage error', async () => {
    const result = await run(['encode', '--command', '1', '--shared-key', SHARED_KEY]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: ekey-locks');
  });
});

describe('ekey-locks nuki', () => {
  it('treats an unknown subcommand as a usage error', async () => {
    const result = await run(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Unknown nuki subcommand "frobnicate"');
  });
});
