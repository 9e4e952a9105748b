import { NukiErrorCode } from '../protocol/nuki-commands.js';
import { decodeUnencryptedFrame } from '../protocol/nuki-frame.js';
import type { NukiErrorReport } from '../protocol/nuki-messages.js';
import { NukiUuids } from '../protocol/nuki-uuids.js';
import type { SimulatedGattService } from '../../../gateway/transports/simulator/simulated-device.js';

/** §2: every characteristic takes (long) writes and answers with indications. */
const WRITE_INDICATE = ['write', 'indicate'] as const;

/** The GATT database of a Nuki Smart Lock (§2). */
export const NUKI_GATT_DATABASE: readonly SimulatedGattService[] = [
  // §2.1: no characteristics; present for advertising the uninitialized state.
  { uuid: NukiUuids.initializationService, characteristics: [] },
  { uuid: NukiUuids.pairingService, characteristics: [{ uuid: NukiUuids.pairingGdio, flags: WRITE_INDICATE }] },
  {
    uuid: NukiUuids.keyturnerService,
    characteristics: [
      { uuid: NukiUuids.keyturnerGdio, flags: WRITE_INDICATE },
      { uuid: NukiUuids.keyturnerUsdio, flags: WRITE_INDICATE },
    ],
  },
];

/**
 * The answer to a frame written to the keyturner GDIO, for which §2.3.1 defines no command:
 * ERROR_BAD_LENGTH (too short), ERROR_BAD_CRC, or ERROR_UNKNOWN naming the command.
 */
export function keyturnerGdioErrorReport(frame: Buffer): NukiErrorReport {
  if (frame.length < 4) return { errorCode: NukiErrorCode.ERROR_BAD_LENGTH, command: 0 };
  const decoded = decodeUnencryptedFrame(frame);
  return { errorCode: decoded.crcOk ? NukiErrorCode.ERROR_UNKNOWN : NukiErrorCode.ERROR_BAD_CRC, command: decoded.command };
}
