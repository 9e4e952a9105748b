/**
 * GATT UUIDs of the Nuki Smart Lock (Nuki Smart Lock API V2.1 §2) and its advertisement, an
 * iBeacon whose UUID is the keyturner service. Always the full lower-case 128-bit form, because
 * BlueZ and node-ble compare UUIDs as exact strings.
 */

const NUKI_UUID_SUFFIX = '-5501-11e4-916c-0800200c9a66';

/** Services and characteristics of a Nuki Smart Lock (§2). */
export const NukiUuids = {
  /** Keyturner Initialization Service (§2.1): no characteristics, advertised while uninitialized. */
  initializationService: `a92ee000${NUKI_UUID_SUFFIX}`,
  /** Keyturner Pairing Service (§2.2). */
  pairingService: `a92ee100${NUKI_UUID_SUFFIX}`,
  /** Pairing General Data Input Output (§2.2.1): write (long), indicate; unencrypted frames. */
  pairingGdio: `a92ee101${NUKI_UUID_SUFFIX}`,
  /** Keyturner Service (§2.3); also the UUID of the lock's iBeacon. */
  keyturnerService: `a92ee200${NUKI_UUID_SUFFIX}`,
  /** Keyturner General Data Input Output (§2.3.1): write (long), indicate. */
  keyturnerGdio: `a92ee201${NUKI_UUID_SUFFIX}`,
  /** User-Specific Data Input Output (§2.3.2): write (long), indicate; encrypted frames only. */
  keyturnerUsdio: `a92ee202${NUKI_UUID_SUFFIX}`,
} as const;

/** Apple's Bluetooth company identifier, under which the iBeacon manufacturer data is sent. */
export const NUKI_APPLE_COMPANY_ID = 0x004c;

/** iBeacon measured power (i8, dBm at 1 m) of a lock with nothing new to report. */
const IDLE_MEASURED_POWER = -60;
/** Measured power −59 instead of −60: a new state or log entry is available; connect and read. */
const NEW_STATE_MEASURED_POWER = -59;

/** iBeacon manufacturer data after the company id: type 0x02, length 0x15, then 21 bytes. */
const IBEACON_TYPE = 0x02;
const IBEACON_LENGTH = 0x15;
const IBEACON_DATA_LENGTH = 2 + IBEACON_LENGTH;

/** The Nuki services whose UUID a lock's iBeacon may carry. */
const NUKI_BEACON_UUIDS: ReadonlySet<string> = new Set([NukiUuids.initializationService, NukiUuids.pairingService, NukiUuids.keyturnerService]);

/** What a Nuki lock's iBeacon says. */
export interface NukiBeacon {
  /** The UUID in the beacon (the keyturner service for a paired lock). */
  serviceUuid: string;
  major: number;
  minor: number;
  /** Signed dBm at 1 m: −60 normally, −59 when {@link NukiBeacon.newState} is set. */
  measuredPower: number;
  /** True when the lock flags a new state or log entry (measured power −59). */
  newState: boolean;
}

/**
 * Reads a Nuki lock's iBeacon from the manufacturer data under {@link NUKI_APPLE_COMPANY_ID}
 * (BlueZ hands the bytes after the company id). Null for anything that is not an iBeacon with
 * the UUID of a Nuki service.
 *
 * @example parseNukiBeacon(encodeNukiBeacon({ newState: true }))?.newState // true
 */
export function parseNukiBeacon(manufacturerDataAfterCompanyId: Buffer): NukiBeacon | null {
  const data = manufacturerDataAfterCompanyId;
  if (data.length < IBEACON_DATA_LENGTH || data[0] !== IBEACON_TYPE || data[1] !== IBEACON_LENGTH) return null;
  const serviceUuid = formatUuid(data.subarray(2, 18));
  if (!NUKI_BEACON_UUIDS.has(serviceUuid)) return null;
  const measuredPower = data.readInt8(22);
  return {
    serviceUuid,
    major: data.readUInt16BE(18),
    minor: data.readUInt16BE(20),
    measuredPower,
    newState: measuredPower === NEW_STATE_MEASURED_POWER,
  };
}

/** Builds the manufacturer data (after the company id) of a Nuki lock's iBeacon; for the simulator. */
export function encodeNukiBeacon(beacon: { newState: boolean; major?: number; minor?: number }): Buffer {
  const data = Buffer.alloc(IBEACON_DATA_LENGTH);
  data[0] = IBEACON_TYPE;
  data[1] = IBEACON_LENGTH;
  Buffer.from(NukiUuids.keyturnerService.replace(/-/g, ''), 'hex').copy(data, 2);
  data.writeUInt16BE(beacon.major ?? 0, 18);
  data.writeUInt16BE(beacon.minor ?? 0, 20);
  data.writeInt8(beacon.newState ? NEW_STATE_MEASURED_POWER : IDLE_MEASURED_POWER, 22);
  return data;
}

function formatUuid(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
