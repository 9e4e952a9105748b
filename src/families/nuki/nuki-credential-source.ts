import { describeError } from '../../domain/errors.js';
import type { FamilyDriverContext, DemoLockSecrets } from '../lock-family-module.js';
import { NukiCredentialFile, type StoredNukiCredentials } from './nuki-credential-file.js';

/** What the demo stores for a simulated Nuki (src/families/nuki/nuki-demo.ts), as pairing would have made it. */
export interface DemoNukiPairing {
  /** 64 hex digits. */
  sharedKey: string;
  authorizationId: number;
  appId: number;
  securityPin: number;
  nukiId: number;
}

/** The demo secrets' pairing, or undefined when they hold none. */
export function demoNukiPairing(secrets: DemoLockSecrets): DemoNukiPairing | undefined {
  const pairing = secrets.nuki;
  return typeof pairing === 'object' && pairing !== null ? (pairing as DemoNukiPairing) : undefined;
}

/**
 * Paired Nukis' credentials, by address: a simulated Nuki's from the demo's secrets; every other
 * Nuki (also one configured next to the demo) from the data folder's `nuki-credentials.json`,
 * read once, at the first lock that needs it (a small file, at start, never on a command's path).
 * Without a data folder: none. @throws when the file cannot be read (the driver then says why).
 */
export function nukiCredentialSource(context: FamilyDriverContext): (address: string) => StoredNukiCredentials | undefined {
  let all: Map<string, StoredNukiCredentials> | undefined;
  return (address) => {
    const demo = context.demoSecrets?.(address);
    const pairing = demo === undefined ? undefined : demoNukiPairing(demo);
    if (pairing !== undefined) {
      return {
        address: address.toUpperCase(),
        sharedKey: Buffer.from(pairing.sharedKey, 'hex'),
        authorizationId: pairing.authorizationId,
        appId: pairing.appId,
        idType: 'app',
        authorizationName: '',
        lockUuid: '',
        securityPin: pairing.securityPin,
        pairedAt: 0,
      };
    }
    if (context.dataDir === undefined) return undefined;
    all ??= new NukiCredentialFile(context.dataDir).readAll();
    return all.get(address.toUpperCase());
  };
}

/** The credentials of `address`, or the sentence that says why they cannot be read (it names the file, never its content). */
export function credentialsOrReason(source: (address: string) => StoredNukiCredentials | undefined, address: string): { stored: StoredNukiCredentials | undefined } | { reason: string } {
  try {
    return { stored: source(address) };
  } catch (error) {
    return { reason: describeError(error) };
  }
}
