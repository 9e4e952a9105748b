/**
 * A TTLock's advertisement (docs/ttlock.md "Advertisement"): manufacturer data whose "company id"
 * is really protocol bytes — prepend it little-endian, then `protocol type | version | scene |
 * params | battery | … | MAC reversed (last 6)`, at least 15 bytes in all (ttlock-rs
 * `advertisement.rs`, ttlock-ble `lock_advertisement.py`; the real K5 advert of ha-ttlock-ble#65).
 * The V3 layout only (type 5, version 3): older families are out of this family's reach.
 */

/** Params bits. */
export const TtlockAdvertFlag = {
  /** The lock's own idea of its bolt: the last position its motor drove to. */
  unlocked: 0x01,
  /** It logged something a central has not read (some locks keep it set always). */
  newRecords: 0x02,
  /** Setting (pairing) mode: woken by a touch of its keypad, unbound. */
  settingMode: 0x04,
  touch: 0x08,
} as const;

export interface TtlockAdvertisement {
  protocolType: number;
  protocolVersion: number;
  scene: number;
  params: number;
  /** Percent, or null when out of range. */
  battery: number | null;
  /** Upper case, from the last six bytes reversed. */
  address: string;
}

/** The company id under which a V3 lock advertises: its protocol bytes 05 03, read little-endian. */
export const TTLOCK_V3_COMPANY_ID = 0x0305;

/** The lock's advertisement among manufacturer data by company id, or null when none is a V3 TTLock's. */
export function parseTtlockAdvertisement(manufacturerData: ReadonlyMap<number, Buffer>): TtlockAdvertisement | null {
  for (const [companyId, data] of manufacturerData) {
    const raw = Buffer.concat([Buffer.from([companyId & 0xff, (companyId >> 8) & 0xff]), data]);
    const parsed = parseRaw(raw);
    if (parsed !== null) return parsed;
  }
  return null;
}

function parseRaw(raw: Buffer): TtlockAdvertisement | null {
  if (raw.length < 15 || raw[0] !== 5 || raw[1] !== 3) return null;
  const battery = raw[4] ?? 0;
  const mac = [...raw.subarray(raw.length - 6)].reverse();
  return {
    protocolType: 5,
    protocolVersion: 3,
    scene: raw[2] ?? 0,
    params: raw[3] ?? 0,
    battery: battery <= 100 ? battery : null,
    address: mac.map((byte) => byte.toString(16).padStart(2, '0').toUpperCase()).join(':'),
  };
}

/** The manufacturer data a V3 lock sends (the simulated lock's side): company id and the bytes after it. */
export function encodeTtlockAdvertisement(fields: { scene: number; params: number; battery: number; address: string }): { companyId: number; data: Buffer } {
  const mac = fields.address.split(':').map((part) => Number.parseInt(part, 16)).reverse();
  // Six bytes the K5 advert carries between battery and MAC, whose meaning no source knows: zero here.
  return { companyId: TTLOCK_V3_COMPANY_ID, data: Buffer.from([fields.scene, fields.params, fields.battery, 0, 0, 0, 0, 0, 0, ...mac]) };
}
