/**
 * Passwords after sign-up (docs/design.md §9b): change one's own in the app (every other session
 * of that user ends), the owner's reset from the command line, and — with SMTP configured —
 * "Forgot your password?" links that work once, for 30 minutes. Setting a password by any of
 * these ends the user's other sessions and every open reset link of theirs, in one transaction.
 */
import type { Clock } from '../domain/clock.js';
import { ServiceError, describeError, notFound, tooManyRequests, validationFailed } from '../domain/errors.js';
import { hashPassword } from '../auth/password.js';
import { PasswordCheck } from '../auth/password-check.js';
import { PasswordAttemptThrottle } from '../auth/password-attempt-throttle.js';
import { newToken, sha256Hex } from '../auth/secrets.js';
import type { Logger } from '../logger.js';
import type { OAuthTokenRepository } from '../store/oauth-token-repository.js';
import type { PasswordResetRepository } from '../store/password-reset-repository.js';
import type { UserRecord, UserRepository } from '../store/user-repository.js';
import type { PasswordResetMailer } from './password-reset-mailer.js';
import { MIN_PASSWORD_LENGTH } from './user-service.js';

/** How long a reset link works. */
export const PASSWORD_RESET_TTL_MS = 30 * 60 * 1000;
/** At most this many reset links per account in {@link PASSWORD_RESET_CAP_WINDOW_MS} (issue #32, finding 7). */
export const PASSWORD_RESET_CAP = 3;
export const PASSWORD_RESET_CAP_WINDOW_MS = 60 * 60 * 1000;
/** scrypt cost grows with length: refuse absurd passwords before hashing. */
const PASSWORD_MAX_LENGTH = 1024;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface PasswordServiceDependencies {
  users: UserRepository;
  tokens: OAuthTokenRepository;
  resets: PasswordResetRepository;
  clock: Clock;
  logger: Logger;
  transaction: <T>(work: () => T) => T;
  /** Undefined without SMTP: then no reset link is made at all. */
  mailer?: PasswordResetMailer | undefined;
  /** How the current password is checked (default: against the stored hash only). */
  passwordCheck?: PasswordCheck | undefined;
  /**
   * The per-account budget of password attempts, shared with sign-in (src/auth/oauth-service.ts):
   * a wrong current password counts as a failed sign-in (issue #32, finding 4). Default: its own.
   */
  passwordAttempts?: PasswordAttemptThrottle | undefined;
  /**
   * Issues a new session (token family) for the caller of a password change (src/auth/oauth-service.ts
   * `issueSession`); the old one ends with every other (issue #32, finding 8).
   */
  sessions: { issueSession(clientId: string, userId: string): NewSession };
}

/** The token pair of a new session, as the token endpoint answers it (RFC 6749 §5.1). */
export interface NewSession {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
}

/** What a reset link stands for. */
export type ResetLinkState = 'open' | 'used' | 'expired' | 'unknown';

export class PasswordService {
  private baseUrl = 'http://127.0.0.1:8787';
  private readonly inFlight = new Set<Promise<void>>();

  private readonly passwordCheck: PasswordCheck;
  private readonly attempts: PasswordAttemptThrottle;

  constructor(private readonly deps: PasswordServiceDependencies) {
    this.passwordCheck = deps.passwordCheck ?? new PasswordCheck({ users: deps.users });
    this.attempts = deps.passwordAttempts ?? new PasswordAttemptThrottle();
  }

  /** Where reset links point (the public base URL, once the API listens). */
  setBaseUrl(url: string): void {
    this.baseUrl = url.replace(/\/+$/, '');
  }

  /** Whether "Forgot your password?" can mail a link (SMTP configured). */
  get canMailResetLinks(): boolean {
    return this.deps.mailer !== undefined;
  }

  /**
   * `PUT /me/password`: checks the current password, sets the new one, and ends every session of
   * the user — the caller's too: the caller's token family is rotated, so a stolen refresh token of
   * that session dies with the old password (issue #32, finding 8). Returns the caller's new
   * session (a new family for the same client), made in the same transaction.
   * The current password is a guess like a sign-in's (a stolen access token must not make this
   * an oracle): it counts against the account's sign-in budget, reserved before the check.
   * @throws ServiceError 400 `validation_failed` (new password) or `wrong_password`; 429
   *   `too_many_password_attempts` with Retry-After once the account's budget is spent.
   */
  async change(caller: { userId: string; clientId: string }, currentPassword: string, newPassword: string): Promise<NewSession> {
    checkNewPassword(newPassword, '/new_password');
    const user = this.deps.users.findById(caller.userId);
    if (!user) throw notFound('user');
    const retryAfterS = await this.attempts.reserve(user.email);
    if (retryAfterS > 0) {
      this.deps.logger.warn(`User ${user.id}: password change refused, too many wrong passwords for the account.`);
      throw tooManyRequests('too_many_password_attempts', 'Too many wrong passwords for this account. Try again later.', retryAfterS);
    }
    const matches = await this.passwordCheck.matches(user, currentPassword);
    if (matches) await this.attempts.succeeded(user.email);
    if (!matches) {
      throw new ServiceError(400, 'wrong_password', 'The current password is not correct.', [
        { field: '/current_password', message: 'is not correct' },
      ]);
    }
    const hash = await hashPassword(newPassword);
    const { revoked, session } = this.deps.transaction(() => ({
      revoked: this.setPassword(user.id, hash),
      session: this.deps.sessions.issueSession(caller.clientId, user.id),
    }));
    this.deps.logger.info(`User ${user.id} changed their password; ${revoked} token(s) of their sessions revoked, a new session issued to this one.`);
    return session;
  }

  /**
   * `ekey-locks user reset-password`: the owner sets a user's password; every session of theirs ends.
   * @throws ServiceError 404 when no account (with a password) has this address.
   */
  async reset(email: string, newPassword: string): Promise<UserRecord> {
    checkNewPassword(newPassword, '/password');
    const user = this.deps.users.findByEmail(email);
    if (!user || user.passwordHash === null) {
      throw new ServiceError(404, 'user_not_found', 'No account has this e-mail address (an invited address signs up with `ekey-locks user add`).');
    }
    this.setPassword(user.id, await hashPassword(newPassword));
    this.deps.logger.info(`The password of user ${user.id} was reset from the command line; their sessions ended.`);
    return user;
  }

  /**
   * "Forgot your password?": when an account has this address and SMTP is configured, mails it a
   * single-use link (30 minutes) that replaces every earlier open link of the account; at most
   * {@link PASSWORD_RESET_CAP} links per account an hour (issue #32, finding 7). Answers nothing
   * either way, and does all of it — even looking the address up — after the caller's answer was
   * sent, so that answer is the same, in content and in time, whether or not the address exists
   * (and a failing store or mail server cannot tell either). The link is never logged.
   */
  requestReset(email: string): void {
    if (this.deps.mailer === undefined) return;
    const work = new Promise<void>((resolve) => {
      setImmediate(() => {
        try {
          this.issueResetLink(email);
        } catch (error) {
          this.deps.logger.warn(`Could not make a password reset link (${describeError(error)}).`);
        }
        resolve();
      });
    });
    this.track(work);
  }

  /** The part of {@link requestReset} that depends on the address: look-up, cap, link, mail. */
  private issueResetLink(email: string): void {
    const mailer = this.deps.mailer;
    if (mailer === undefined) return;
    const user = email.length <= 254 ? this.deps.users.findByEmail(email.trim()) : undefined;
    if (!user || user.passwordHash === null) return;
    const token = newToken();
    const now = this.deps.clock.now();
    const expiresAt = now + PASSWORD_RESET_TTL_MS;
    const issued = this.deps.transaction(() => {
      this.deps.resets.purgeCreatedBefore(now - PASSWORD_RESET_CAP_WINDOW_MS);
      if (this.deps.resets.countCreatedAfter(user.id, now - PASSWORD_RESET_CAP_WINDOW_MS) >= PASSWORD_RESET_CAP) return false;
      // The newest link is the only one that works: an older one in someone's old mail is dead.
      this.deps.resets.useAllFor(user.id, now);
      this.deps.resets.insert({ tokenHash: sha256Hex(token), userId: user.id, expiresAt, createdAt: now });
      return true;
    });
    if (!issued) {
      this.deps.logger.info(`User ${user.id} asked for more than ${PASSWORD_RESET_CAP} password reset links within an hour; none was sent.`);
      return;
    }
    const delivery = mailer.send({ to: user.email, link: `${this.baseUrl}/password/reset/${token}`, expiresAt }).then(
      () => {
        this.deps.logger.info(`A password reset link was e-mailed to user ${user.id}.`);
      },
      (error: unknown) => {
        this.deps.logger.warn(`Could not e-mail a password reset link to user ${user.id} (${describeError(error)}); the link is not logged.`);
      },
    );
    this.track(delivery);
  }

  /** Keeps background work countable for {@link whenIdle}; it never rejects. */
  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /** Resolves once every reset mail handed over has been sent or has failed (tests, shutdown). */
  async whenIdle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** What a reset link stands for, revealing nothing for a bad one. */
  describeReset(token: string): ResetLinkState {
    if (!TOKEN_PATTERN.test(token)) return 'unknown';
    const record = this.deps.resets.find(sha256Hex(token));
    if (!record) return 'unknown';
    if (record.usedAt !== null) return 'used';
    return record.expiresAt <= this.deps.clock.now() ? 'expired' : 'open';
  }

  /**
   * Sets the password through a reset link: once, within 30 minutes; every session of the user ends.
   * @throws ServiceError 400 `validation_failed`, 404 `reset_link_not_found`, 410 `reset_link_used` / `reset_link_expired`.
   */
  async completeReset(token: string, newPassword: string): Promise<{ email: string }> {
    this.assertOpen(token);
    checkNewPassword(newPassword, '/password');
    const hash = await hashPassword(newPassword);
    const tokenHash = sha256Hex(token);
    const user = this.deps.transaction(() => {
      // Checked again inside: the same link may have been used while the password was hashed.
      this.assertOpen(token);
      const record = this.deps.resets.find(tokenHash);
      const found = record ? this.deps.users.findById(record.userId) : undefined;
      if (!record || !found) throw linkError('unknown');
      this.deps.resets.use(tokenHash, this.deps.clock.now());
      this.setPassword(found.id, hash);
      return found;
    });
    this.deps.logger.info(`User ${user.id} chose a new password through a reset link; their sessions ended.`);
    return { email: user.email };
  }

  private assertOpen(token: string): void {
    const state = this.describeReset(token);
    if (state !== 'open') throw linkError(state);
  }

  /** One transaction: the new hash, every session revoked, every open reset link used up. */
  private setPassword(userId: string, passwordHash: string): number {
    return this.deps.transaction(() => {
      const user = this.deps.users.findById(userId);
      if (!user) throw notFound('user');
      const now = this.deps.clock.now();
      this.deps.users.update({ ...user, passwordHash });
      this.deps.resets.useAllFor(userId, now);
      return this.deps.tokens.revokeUserSessions(userId, now);
    });
  }
}

function checkNewPassword(password: string, field: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw validationFailed([{ field, message: `must be at least ${MIN_PASSWORD_LENGTH} characters` }], 'Please choose a longer password.');
  }
}

function linkError(state: Exclude<ResetLinkState, 'open'>): ServiceError {
  switch (state) {
    case 'used':
      return new ServiceError(410, 'reset_link_used', 'This link no longer works: it has been used, or a newer one was sent. Ask for a new one if you still need it.');
    case 'expired':
      return new ServiceError(410, 'reset_link_expired', 'This link has expired (links work for 30 minutes). Ask for a new one.');
    case 'unknown':
      return new ServiceError(404, 'reset_link_not_found', 'This link is not valid. Ask for a new one.');
  }
}
