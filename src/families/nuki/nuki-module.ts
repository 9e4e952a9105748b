import { randomBytes, randomInt } from 'node:crypto';
import type { LockFamilyModule } from '../lock-family-module.js';
import { NukiDriver } from './driver/nuki-driver.js';
import { NUKI_CREDENTIALS_FILE } from './nuki-credential-file.js';
import { credentialsOrReason, demoNukiPairing, nukiCredentialSource } from './nuki-credential-source.js';
import { nukiPairing } from './nuki-pairing-facet.js';
import { nukiUserLinksOfEntry } from './nuki-user-links.js';
import { NukiDemoLock } from './simulator/nuki-demo-lock.js';
import { smartLockVariant } from './smart-lock-variant.js';

/** The lock-side user the demo links to its owner: a tap naming it is the owner's (docs/design.md §4b). */
export const DEMO_LINKED_AUTHORIZATION = "Olivia's iPhone";

/** A simulated Nuki's pairing, as `ekey-locks nuki pair` would have stored it; no lock key. */
export function newDemoNukiSecrets(): Readonly<Record<string, unknown>> {
  return {
    key: '',
    nuki: {
      sharedKey: randomBytes(32).toString('hex'),
      authorizationId: randomInt(2, 0x7fff_ffff),
      appId: randomInt(1, 0x7fff_ffff),
      securityPin: randomInt(1000, 10_000),
      nukiId: randomInt(0x1000_0000, 0x7fff_ffff),
    },
  };
}

/** The Nuki Smart Lock's heavy part (src/families/nuki/nuki-family.ts `load`). */
export const nukiModule: LockFamilyModule = {
  driverFactory(context) {
    const credentials = nukiCredentialSource(context);
    return (lock) => {
      const pairCommand = `"ekey-locks nuki pair --address ${lock.bleAddress}"`;
      const found = credentialsOrReason(credentials, lock.bleAddress);
      if ('reason' in found) {
        return new NukiDriver(null, {
          unpairedReason: `this Nuki's credentials cannot be read (${found.reason}), so it stays offline. Restore that file from a backup, or move it aside and pair every Nuki again (${pairCommand}); then restart Homebridge (docs/nuki.md).`,
        });
      }
      const stored = found.stored;
      if (stored === undefined) {
        return new NukiDriver(null, {
          unpairedReason: `this Nuki is not paired yet, so it stays offline. Hold its button for 5 s, run ${pairCommand} and restart Homebridge (docs/nuki.md).`,
        });
      }
      // An API 2.3 lock (Ultra, Go, Pro 5th generation) reads its PIN as a u32 (docs/design.md §4d).
      return new NukiDriver(
        { sharedKey: stored.sharedKey, authorizationId: stored.authorizationId, appId: stored.appId, securityPin: stored.securityPin },
        stored.apiLevel === '2.3' ? { variant: smartLockVariant('2.3') } : {},
      );
    };
  },
  userLinks: nukiUserLinksOfEntry,
  secretFiles: [NUKI_CREDENTIALS_FILE],
  pairing: nukiPairing,
  cli: (args) => import('./nuki-cli-command.js').then((command) => command.nukiCommand(args)),
  demo: {
    // docs/design.md §4b–§4c, §6: Back Door, a Smart Lock with a Nuki Keypad and a door sensor, third.
    locks: [{ name: 'Back Door', address: 'D0:E1:00:00:00:03', overBluetooth: true, keypad: true, order: 3 }],
    newSecrets: newDemoNukiSecrets,
    storedKeyOf: () => null,
    linkedUser: DEMO_LINKED_AUTHORIZATION,
    simulate({ name, secrets, start, clock, timeZone, gatewayUser }) {
      const pairing = demoNukiPairing(secrets);
      if (pairing === undefined) throw new Error(`demo lock ${secrets.id} has no Nuki pairing`);
      return new NukiDemoLock({
        address: secrets.address,
        name,
        clock,
        nukiId: pairing.nukiId,
        securityPin: pairing.securityPin,
        bolt: start.bolt,
        batteryPercent: start.batteryPercent,
        hasDoorSensor: true,
        // docs/design.md §4c: a Nuki Keypad, in the zone the demo gives its locks.
        keypad: true,
        timeZone,
        firstLogIndex: start.firstSequence,
        authorizations: [
          { id: pairing.authorizationId, name: gatewayUser, type: 'app', sharedKey: Buffer.from(pairing.sharedKey, 'hex') },
          { id: pairing.authorizationId + 1, name: DEMO_LINKED_AUTHORIZATION, type: 'app' },
        ],
      });
    },
  },
};
