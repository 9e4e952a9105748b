import { describeError } from '../../domain/errors.js';
import type { DemoLockSecrets, FamilyDriverContext } from '../lock-family-module.js';
import { DEFAULT_TTLOCK_VERSION } from './protocol/ttlock-frame.js';
import { TtlockCredentialFile, type StoredTtlockCredentials } from './ttlock-credential-file.js';

/** What the demo stores for its simulated TTLock, as pairing would have made it. */
export interface DemoTtlockPairing {
  /** 32 hex digits. */
  aesKey: string;
  adminPs: number;
  unlockKey: number;
  uid: number;
}

/** The demo secrets' pairing, or undefined when they hold none. */
export function demoTtlockPairing(secrets: DemoLockSecrets): DemoTtlockPairing | undefined {
  const pairing = secrets.ttlock;
  return typeof pairing === 'object' && pairing !== null ? (pairing as DemoTtlockPairing) : undefined;
}

/**
 * Paired TTLocks' credentials by address: a simulated one's from the demo's secrets; every other
 * from the data folder's `ttlock-credentials.json`, read once, at the first lock that needs it.
 * Without a data folder: none. @throws when the file cannot be read (the driver then says why).
 */
export function ttlockCredentialSource(context: FamilyDriverContext): (address: string) => StoredTtlockCredentials | undefined {
  let all: Map<string, StoredTtlockCredentials> | undefined;
  return (address) => {
    const demo = context.demoSecrets?.(address);
    const pairing = demo === undefined ? undefined : demoTtlockPairing(demo);
    if (pairing !== undefined) {
      return {
        address: address.toUpperCase(),
        aesKey: Buffer.from(pairing.aesKey, 'hex'),
        adminPs: pairing.adminPs,
        unlockKey: pairing.unlockKey,
        uid: pairing.uid,
        lockFlagPos: 0,
        version: DEFAULT_TTLOCK_VERSION,
        adminKeypadCode: null,
        origin: 'paired',
        addedAt: 0,
      };
    }
    if (context.dataDir === undefined) return undefined;
    all ??= new TtlockCredentialFile(context.dataDir).readAll();
    return all.get(address.toUpperCase());
  };
}

/** The credentials of `address`, or the sentence that says why they cannot be read (it names the file, never its content). */
export function ttlockCredentialsOrReason(source: (address: string) => StoredTtlockCredentials | undefined, address: string): { stored: StoredTtlockCredentials | undefined } | { reason: string } {
  try {
    return { stored: source(address) };
  } catch (error) {
    return { reason: describeError(error) };
  }
}
