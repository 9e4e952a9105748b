import type { GattProfile } from '../../../gateway/gatt-transport.js';
import { NukiUuids } from '../protocol/nuki-uuids.js';

/** The Nuki keyturner service as the runtime uses it: the encrypted User-Specific Data I/O (write + indicate). */
export const NUKI_KEYTURNER_PROFILE: GattProfile = {
  characteristics: [{ name: 'usdio', service: NukiUuids.keyturnerService, uuid: NukiUuids.keyturnerUsdio, required: true, subscribe: true }],
};

/** The Nuki pairing service (unencrypted General Data I/O), used only by `ekey-locks nuki pair`. */
export const NUKI_PAIRING_PROFILE: GattProfile = {
  characteristics: [{ name: 'gdio', service: NukiUuids.pairingService, uuid: NukiUuids.pairingGdio, required: true, subscribe: true }],
};
