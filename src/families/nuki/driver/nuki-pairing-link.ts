import { withTimeout } from '../../../gateway/deadline.js';
import type { GattTransport } from '../../../gateway/gatt-transport.js';
import { NukiMessageAssembler } from '../protocol/nuki-message-assembler.js';
import { NukiPairingError, pairNukiLock, type NukiCredentials, type NukiPairingChannel, type NukiPairingOptions } from '../protocol/nuki-pairing.js';
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
  const assembler = new NukiMessageAssembler('unencrypted');
  const frames: Buffer[] = [];
  const waiter: { wake: (() => void) | null } = { wake: null };
  connection.onNotification((characteristic, value) => {
    if (characteristic !== 'gdio') return;
    frames.push(...assembler.push(value));
    waiter.wake?.();
  });
  connection.onDisconnect(() => {
    waiter.wake?.();
  });
  const channel: NukiPairingChannel = {
    send: (frame) => connection.write('gdio', frame),
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
  };
  try {
    return await pairNukiLock(channel, options);
  } finally {
    waiter.wake?.();
    await connection.disconnect();
  }
}
