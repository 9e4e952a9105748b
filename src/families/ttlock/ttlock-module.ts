import { randomBytes, randomInt } from 'node:crypto';
import type { LockFamilyModule } from '../lock-family-module.js';
import { TtlockDriver } from './driver/ttlock-driver.js';
import { TtlockDemoLock } from './simulator/ttlock-demo-lock.js';
import { TTLOCK_CREDENTIALS_FILE } from './ttlock-credential-file.js';
import { demoTtlockPairing, ttlockCredentialSource, ttlockCredentialsOrReason } from './ttlock-credential-source.js';
import { ttlockPairing } from './ttlock-pairing-facet.js';

/** A simulated TTLock's pairing, as `ekey-locks ttlock pair` would have stored it; no lock key in the store. */
export function newDemoTtlockSecrets(): Readonly<Record<string, unknown>> {
  return {
    key: '',
    ttlock: {
      aesKey: randomBytes(16).toString('hex'),
      adminPs: randomInt(100_000_000, 1_000_000_000),
      unlockKey: randomInt(100_000_000, 1_000_000_000),
      uid: randomInt(1, 0x7fff_ffff),
    },
  };
}

/** The TTLock family's heavy part (src/families/ttlock/ttlock-family.ts `load`). */
export const ttlockModule: LockFamilyModule = {
  driverFactory(context) {
    const credentials = ttlockCredentialSource(context);
    return (lock) => {
      const pairCommand = `"ekey-locks ttlock pair --address ${lock.bleAddress}"`;
      const found = ttlockCredentialsOrReason(credentials, lock.bleAddress);
      if ('reason' in found) {
        return new TtlockDriver(null, {
          timeZone: lock.timeZone,
          unusableReason: `this TTLock's credentials cannot be read (${found.reason}), so it stays offline. Restore that file from a backup, or move it aside and pair the lock again (${pairCommand}); then restart Homebridge (docs/ttlock.md).`,
        });
      }
      const stored = found.stored;
      if (stored === undefined) {
        return new TtlockDriver(null, {
          timeZone: lock.timeZone,
          unusableReason: `this TTLock is not paired yet, so it stays offline. Reset it, touch its keypad, run ${pairCommand} and restart Homebridge (docs/ttlock.md).`,
        });
      }
      return new TtlockDriver(
        { aesKey: stored.aesKey, adminPs: stored.adminPs, unlockKey: stored.unlockKey, uid: stored.uid, lockFlagPos: stored.lockFlagPos, version: stored.version, since: stored.addedAt },
        { timeZone: lock.timeZone },
      );
    };
  },
  secretFiles: [TTLOCK_CREDENTIALS_FILE],
  pairing: ttlockPairing,
  cli: (args) => import('./ttlock-cli-command.js').then((command) => command.ttlockCommand(args)),
  demo: {
    // docs/design.md §4f, §6: Side Door, a TTLock with a keypad, fifth.
    locks: [{ name: 'Side Door', address: 'D0:E1:00:00:00:05', overBluetooth: true, keypad: true, order: 5 }],
    newSecrets: newDemoTtlockSecrets,
    storedKeyOf: () => null,
    simulate({ name, secrets, start, clock, timeZone }) {
      const pairing = demoTtlockPairing(secrets);
      if (pairing === undefined) throw new Error(`demo lock ${secrets.id} has no TTLock pairing`);
      return new TtlockDemoLock({
        address: secrets.address,
        name,
        clock,
        timeZone,
        paired: { aesKey: Buffer.from(pairing.aesKey, 'hex'), adminPs: pairing.adminPs, unlockKey: pairing.unlockKey },
        bolt: start.bolt,
        batteryPercent: start.batteryPercent,
        firstLogNumber: start.firstSequence,
      });
    },
  },
};
