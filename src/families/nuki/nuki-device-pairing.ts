import { TransportError, type GattProfile, type GattTransport } from '../../gateway/gatt-transport.js';
import { nukiPairingChannel } from './driver/nuki-pairing-link.js';
import { NukiPairingError, pairNukiLock, type NukiCredentials, type NukiPairingOptions } from './protocol/nuki-pairing.js';
import { allPairingTargets, type NukiPairingTarget } from './nuki-api-level.js';
import { pairNukiApi23 } from './protocol/nuki-api23-pairing.js';

/** Every Nuki pairing GDIO, each optional: the device offers the one of its kind and API level. */
const ANY_NUKI_PAIRING_PROFILE: GattProfile = {
  characteristics: allPairingTargets().map((target, index) => ({ name: `gdio${index}`, service: target.pairingService, uuid: target.pairingGdio, required: false, subscribe: true })),
};

/** What pairing produced, and which device it was. */
export interface NukiDevicePairing {
  credentials: NukiCredentials;
  target: NukiPairingTarget;
}

/**
 * Pairs with the Nuki device at `address`, whichever it is (docs/design.md §4d): connects, sees
 * which pairing service it offers — Smart Lock API 2.1/2.2, Smart Lock API 2.3 (Ultra, Go, Pro
 * 5th generation) or Opener — and runs that pairing. An API 2.3 lock needs its 6-digit security
 * PIN. Disconnects whatever happens.
 *
 * @throws TransportError (`gatt_unavailable` when the device offers no Nuki pairing service);
 *   NukiPairingError (`pin_required` is `protocol` with a message saying so).
 */
export async function pairNukiDevice(
  transport: GattTransport,
  address: string,
  options: NukiPairingOptions & {
    connectTimeoutMs?: number;
    securityPin: number | null;
    /** Called once the device is known, before anything is sent to it; what it throws ends the pairing. */
    checkTarget?: (target: NukiPairingTarget) => void;
  },
): Promise<NukiDevicePairing> {
  const connection = await transport.connect(address, ANY_NUKI_PAIRING_PROFILE, { timeoutMs: options.connectTimeoutMs ?? 15_000 });
  const index = allPairingTargets().findIndex((_, position) => connection.has(`gdio${position}`));
  const target = allPairingTargets()[index];
  if (target === undefined) {
    await connection.disconnect();
    throw new TransportError('gatt_unavailable', `${address} offers no Nuki pairing service`);
  }
  try {
    options.checkTarget?.(target);
  } catch (error) {
    await connection.disconnect();
    throw error;
  }
  const channel = nukiPairingChannel(connection, `gdio${index}`);
  try {
    if (target.apiLevel === '2.3') {
      if (options.securityPin === null) {
        throw new NukiPairingError('protocol', `This is a ${target.description} (Bluetooth API 2.3): pairing needs its 6-digit security PIN (--pin).`);
      }
      return { credentials: await pairNukiApi23(channel, { ...options, securityPin: options.securityPin }), target };
    }
    return { credentials: await pairNukiLock(channel, options), target };
  } finally {
    channel.release();
    await connection.disconnect();
  }
}

/**
 * Which Nuki the device at `address` is, from the pairing service its GATT database offers (the
 * model class and API level, docs/design.md §4d); null when it offers none. Connects and
 * disconnects; sends nothing. @throws TransportError when it cannot be reached.
 */
export async function probeNukiDevice(transport: GattTransport, address: string, timeoutMs: number): Promise<NukiPairingTarget | null> {
  const connection = await transport.connect(address, ANY_NUKI_PAIRING_PROFILE, { timeoutMs });
  try {
    return allPairingTargets().find((_, position) => connection.has(`gdio${position}`)) ?? null;
  } finally {
    await connection.disconnect();
  }
}
