/**
 * The client side of API 2.3 pairing (Smart Lock Ultra, Go, Pro 5th generation; docs/nuki.md
 * "API 2.3 pairing"), over the pairing GDIO `a92ee301-…`:
 *
 *   CL → Request Data(Public Key)          SL → Public Key (pkK)
 *   CL → Public Key (pkA)                  both: s = kdf1(dh1(…)); SL → Challenge (nK)
 *   CL → Authorization Authenticator h1(pkA | pkK | nK)
 *                                          SL → Authorization Info
 *   CL → Authorization Data, encrypted under s with our app id in the header:
 *        app id | name | security PIN (u32)
 *                                          SL → Authorization-ID, encrypted: auth id | lock UUID
 */
import { NukiCommand } from './nuki-commands.js';
import { createNukiKeyPair, randomNukiNonce } from './nuki-crypto.js';
import { decodeEncryptedFrame, encodeEncryptedFrame } from './nuki-frame.js';
import { NukiPairingSteps, type NukiCredentials, type NukiPairingChannel, type NukiPairingOptions } from './nuki-pairing.js';
import { MAX_SECURITY_PIN } from '../nuki-api-level.js';
import { NUKI_AUTHORIZATION_INFO_COMMAND, decodeApi23AuthorizationId, encodeApi23AuthorizationData } from './nuki-api23-messages.js';

/** The pairing GDIO of an API 2.3 lock: unencrypted frames first, encrypted ones after Authorization Data. */
export interface NukiApi23PairingChannel extends NukiPairingChannel {
  /** From now on, whole frames are cut as encrypted frames (their length is in their header). */
  expectEncrypted(): void;
}

/**
 * Pairs with an API 2.3 lock in pairing mode. `securityPin` is the lock's 6-digit PIN.
 * @throws NukiPairingError (`bad_pin` for a wrong PIN; otherwise as pairNukiLock).
 */
export async function pairNukiApi23(channel: NukiApi23PairingChannel, options: NukiPairingOptions & { securityPin: number }): Promise<NukiCredentials> {
  if (!Number.isInteger(options.securityPin) || options.securityPin < 0 || options.securityPin > MAX_SECURITY_PIN['2.3']) {
    throw new RangeError('The security PIN of an API 2.3 lock has six digits.');
  }
  const steps = new NukiPairingSteps(channel, options.stepTimeoutMs);
  const { sharedKey, lockPublicKey } = await steps.authenticateKeys(options.keyPair ?? createNukiKeyPair());
  // Its content is not needed.
  await steps.receive(NUKI_AUTHORIZATION_INFO_COMMAND, () => undefined);

  channel.expectEncrypted();
  const payload = encodeApi23AuthorizationData({ appId: options.appId, name: options.name, securityPin: options.securityPin });
  await channel.send(encodeEncryptedFrame({ sharedKey, authorizationId: options.appId, nonce: randomNukiNonce(24), command: NukiCommand.authorizationData, payload }));
  const assigned = await steps.receive(NukiCommand.authorizationId, decodeApi23AuthorizationId, (bytes) => decodeEncryptedFrame(bytes, sharedKey));
  return { sharedKey, authorizationId: assigned.authorizationId, appId: options.appId, idType: 'app', lockUuid: assigned.lockUuid, lockPublicKey };
}
