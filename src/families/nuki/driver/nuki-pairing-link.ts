import { withTimeout } from '../../../gateway/deadline.js';
import type { GattConnection, GattTransport } from '../../../gateway/gatt-transport.js';
import type { NukiApi23PairingChannel } from '../protocol/nuki-api23-pairing.js';
import { NukiMessageAssembler } from '../protocol/nuki-message-assembler.js';
import { NukiPairingError, pairNukiLock, type NukiCredentials, type NukiPairingOptions } from '../protocol/nuki-pairing.js';
import { NUKI_PAIRING_PROFILE } from './nuki-gatt-profile.js';

/**
 * Pairs with the Nuki lock at `address` over a transport (BlueZ for `ekey-locks nuki pair`, the
 * simulator in tests): connects to the pairing service, runs "Authorize App" on its General Data
 * I/O (whole frames out, indications reassembled in), and disconnects whatever happens.
 *
 * @throws TransportError when the lock cannot be reached; NukiPairingError when pairing fails.
 */
export async function pairNukiOverGatt(
  transport: GattTransport,
  address: string,
  options: NukiPairingOptions & { connectTimeoutMs?: number },
): Promise<NukiCredentials> {
  const connection = await transport.connect(address, NUKI_PAIRING_PROFILE, { timeoutMs: options.connectTimeoutMs ?? 15_000 });
  const channel = nukiPairingChannel(connection, 'gdio');
  try {
    return await pairNukiLock(channel, options);
  } finally {
    channel.release();
    await connection.disconnect();
  }
}

/**
 * The pairing GDIO `characteristic` of a connection as a pairing channel: whole frames out,
 * indications reassembled in, as unencrypted frames until `expectEncrypted()` (API 2.3).
 * `release()` wakes a receive still waiting, before the connection is closed.
 */
export function nukiPairingChannel(connection: GattConnection, characteristic: string): NukiApi23PairingChannel & { release(): void } {
  let assembler = new NukiMessageAssembler('unencrypted');
  const frames: Buffer[] = [];
  const waiter: { wake: (() => void) | null } = { wake: null };
  connection.onNotification((name, value) => {
    if (name !== characteristic) return;
    frames.push(...assembler.push(value));
    waiter.wake?.();
  });
  connection.onDisconnect(() => {
    waiter.wake?.();
  });
  return {
    send: (frame) => connection.write(characteristic, frame),
    receive: async (timeoutMs) => {
      const waited = (async (): Promise<Buffer> => {
        for (;;) {
          const frame = frames.shift();
          if (frame !== undefined) return frame;
          if (!connection.connected) throw new NukiPairingError('timeout', 'the lock closed the connection');
          await new Promise<void>((resolve) => {
            waiter.wake = resolve;
          });
          waiter.wake = null;
        }
      })();
      return withTimeout(waited, timeoutMs, () => new NukiPairingError('timeout', `no answer from the lock within ${timeoutMs} ms`));
    },
    expectEncrypted: () => {
      assembler = new NukiMessageAssembler('encrypted');
    },
    release: () => {
      waiter.wake?.();
    },
  };
}
