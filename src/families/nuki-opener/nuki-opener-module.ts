import type { LockFamilyModule } from '../lock-family-module.js';
import { NukiDriver } from '../nuki/driver/nuki-driver.js';
import { credentialsOrReason, demoNukiPairing, nukiCredentialSource } from '../nuki/nuki-credential-source.js';
import { DEMO_LINKED_AUTHORIZATION, newDemoNukiSecrets } from '../nuki/nuki-module.js';
import { nukiUserLinksOfEntry } from '../nuki/nuki-user-links.js';
import { openerVariant } from './opener-variant.js';
import { OpenerDemoLock } from './simulator/opener-demo-lock.js';

/** The Nuki Opener's heavy part (src/families/nuki-opener/nuki-opener-family.ts `load`). */
export const nukiOpenerModule: LockFamilyModule = {
  driverFactory(context) {
    const credentials = nukiCredentialSource(context);
    return (lock) => {
      const pairCommand = `"ekey-locks nuki pair --address ${lock.bleAddress}"`;
      const options = { variant: openerVariant() };
      const found = credentialsOrReason(credentials, lock.bleAddress);
      if ('reason' in found) {
        return new NukiDriver(null, {
          ...options,
          unpairedReason: `this Nuki Opener's credentials cannot be read (${found.reason}), so it stays offline. Restore that file from a backup, or move it aside and pair every Nuki again (${pairCommand}); then restart Homebridge (docs/nuki.md).`,
        });
      }
      const stored = found.stored;
      if (stored === undefined) {
        return new NukiDriver(null, {
          ...options,
          unpairedReason: `this Nuki Opener is not paired yet, so it stays offline. Press its button for 5 s, run ${pairCommand} and restart Homebridge (docs/nuki.md).`,
        });
      }
      return new NukiDriver({ sharedKey: stored.sharedKey, authorizationId: stored.authorizationId, appId: stored.appId, securityPin: stored.securityPin }, options);
    };
  },
  userLinks: nukiUserLinksOfEntry,
  demo: {
    // docs/design.md §4d, §6: Building Door, the building's intercom, after Back Door.
    locks: [{ name: 'Building Door', address: 'D0:E1:00:00:00:04', overBluetooth: true, keypad: false, order: 4 }],
    newSecrets: newDemoNukiSecrets,
    storedKeyOf: () => null,
    linkedUser: DEMO_LINKED_AUTHORIZATION,
    // Building Door starts locked (no mode active); its modes are not stored, so a restart starts there too.
    simulate({ name, secrets, start, clock, gatewayUser }) {
      const pairing = demoNukiPairing(secrets);
      if (pairing === undefined) throw new Error(`demo lock ${secrets.id} has no Nuki pairing`);
      return new OpenerDemoLock({
        address: secrets.address,
        name,
        clock,
        nukiId: pairing.nukiId,
        securityPin: pairing.securityPin,
        firstLogIndex: start.firstSequence,
        authorizations: [
          { id: pairing.authorizationId, name: gatewayUser, sharedKey: Buffer.from(pairing.sharedKey, 'hex') },
          { id: pairing.authorizationId + 1, name: DEMO_LINKED_AUTHORIZATION },
        ],
      });
    },
  },
};
