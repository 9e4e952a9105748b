import { describe, expect, it, jest } from '@jest/globals';
import type { ScryptOptions } from 'node:crypto';

/*
 * src/auth/password.ts: scrypt N=2^15, r=8, p=1 (32 MiB per derivation), one derivation at a time
 * so a first start's four demo hashes never hold 128 MiB at once (docs/performance.md "footprint").
 * node:crypto's scrypt is wrapped to record how many derivations overlap; it still derives for real.
 */
const actual = await import('node:crypto');
let inFlight = 0;
let maxInFlight = 0;
const seen: ScryptOptions[] = [];
jest.unstable_mockModule('node:crypto', () => ({
  ...actual,
  scrypt: (password: string, salt: Buffer, keylen: number, options: ScryptOptions, callback: (error: Error | null, key: Buffer) => void) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    seen.push(options);
    try {
      actual.scrypt(password, salt, keylen, options, (error, key) => {
        inFlight--;
        callback(error, key);
      });
    } catch (error) {
      inFlight--;
      throw error;
    }
  },
}));
const { hashPassword, verifyPassword } = await import('../../../src/auth/password.js');

describe('password hashing', () => {
  it('runs one scrypt at a time, with unchanged parameters, and every hash still verifies', async () => {
    maxInFlight = 0;
    seen.length = 0;
    const passwords = ['demo-aaaa', 'demo-bbbb', 'demo-cccc', 'demo-dddd'];
    const hashes = await Promise.all(passwords.map((password) => hashPassword(password)));
    expect(maxInFlight).toBe(1);
    expect(seen).toHaveLength(4);
    for (const options of seen) expect(options).toMatchObject({ N: 32768, r: 8, p: 1 });
    for (const hash of hashes) expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{86}$/);

    const checks = await Promise.all([
      verifyPassword('demo-aaaa', hashes[0] ?? ''),
      verifyPassword('demo-bbbb', hashes[1] ?? ''),
      verifyPassword('wrong', hashes[2] ?? ''),
      verifyPassword('demo-dddd', hashes[3] ?? ''),
    ]);
    expect(checks).toEqual([true, true, false, true]);
    expect(maxInFlight).toBe(1);
  }, 60_000);

  it('lets the next derivation run after one fails', async () => {
    maxInFlight = 0;
    // An unsupported parameter set (N not a power of two) fails inside scrypt.
    const broken = verifyPassword('x', 'scrypt$1000$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAA');
    const next = hashPassword('after');
    await expect(broken).rejects.toThrow();
    await expect(next).resolves.toMatch(/^scrypt\$/);
    expect(maxInFlight).toBe(1);
  }, 60_000);
});
