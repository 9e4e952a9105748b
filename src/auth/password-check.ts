import { hashPassword, verifyPassword } from './password.js';
import { constantTimeEqual } from './secrets.js';
import type { UserRecord, UserRepository } from '../store/user-repository.js';

/**
 * What `users.password_hash` holds for an account whose password the service already knows in
 * plain and hashes at its first sign-in: the demo's users, whose passwords the demo prints and keeps
 * (src/demo/demo-household.ts). It is not a hash and holds nothing of the password:
 * `verifyPassword` fails on it, so anything that does not know the plain password (a service
 * opened without the demo) can never sign in with it. For every other rule the account is an
 * account with a password (not an invited address).
 */
export const HASHED_AT_FIRST_SIGN_IN = 'hashed-at-first-sign-in';

export interface PasswordCheckDependencies {
  users: Pick<UserRepository, 'findById' | 'update'>;
  /** The plain password of an account stored as {@link HASHED_AT_FIRST_SIGN_IN}; undefined for any other. */
  knownPassword?: ((userId: string) => string | undefined) | undefined;
}

/**
 * Checks a user's password (sign-in, password change). Every check costs one scrypt derivation
 * (src/auth/password.ts), whatever the account holds: an account stored as
 * {@link HASHED_AT_FIRST_SIGN_IN} is compared with its known password in constant time, and on a
 * match its scrypt hash (the same parameters as every other) is made from the password just given
 * and stored, so from then on it is an account like any other.
 */
export class PasswordCheck {
  constructor(private readonly deps: PasswordCheckDependencies) {}

  async matches(user: UserRecord, password: string): Promise<boolean> {
    const stored = user.passwordHash;
    if (stored === null) return false;
    if (stored !== HASHED_AT_FIRST_SIGN_IN) return verifyPassword(password, stored);
    const known = this.deps.knownPassword?.(user.id);
    // The derivation comes first, match or not: the answer takes as long either way.
    const hash = await hashPassword(password);
    if (known === undefined || !constantTimeEqual(password.normalize('NFKC'), known.normalize('NFKC'))) return false;
    const current = this.deps.users.findById(user.id);
    // Set meanwhile (a parallel sign-in, a reset): that one stands.
    if (current?.passwordHash === HASHED_AT_FIRST_SIGN_IN) this.deps.users.update({ ...current, passwordHash: hash });
    return true;
  }
}
