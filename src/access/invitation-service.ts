/**
 * Invitations of unknown e-mail addresses (docs/design.md §3 eKeys): an eKey sent to an address without an
 * account makes an invited user (no password) holding a `pending` key, and an invitation whose link
 * leads to a sign-up page. Signing up sets the name and password and accepts every pending key of
 * that user, in one transaction.
 */
import { deceptiveTextProblem } from '../domain/display-text.js';
import type { Clock } from '../domain/clock.js';
import { ServiceError, validationFailed, type FieldError, describeError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { hashPassword } from '../auth/password.js';
import { newToken, sha256Hex } from '../auth/secrets.js';
import type { Logger } from '../logger.js';
import type { DoorCodeRepository } from '../store/door-code-repository.js';
import type { EKeyRepository, StoredEKey } from '../store/ekey-repository.js';
import type { EKeyChangeNotifier } from './ekey-change-notifier.js';
import type { InvitationRecord, InvitationRepository } from '../store/invitation-repository.js';
import type { LockRepository } from '../store/lock-repository.js';
import type { UserRepository } from '../store/user-repository.js';
import type { InvitationMailer, InvitationMessage } from './invitation-mailer.js';
import { MIN_PASSWORD_LENGTH } from './user-service.js';
import { formatEKeyDateTime } from '../domain/ekey-datetime.js';
import type { EKeyType } from '../domain/ekey-types.js';

/** How long an invitation link works (ours; the spec has no invitations). */
export const INVITATION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Longest accepted display name on sign-up, as for `ekey-locks user add`. */
const NAME_MAX_LENGTH = 100;
/** scrypt cost is per byte too; refuse absurd passwords before hashing. */
const PASSWORD_MAX_LENGTH = 1024;

/** An invitation just made: the secret link token exists only here and in the link. */
export interface IssuedInvitation {
  record: InvitationRecord;
  token: string;
}

/** One pending key as the sign-up page describes it (docs/design.md §7: the guest's first minute). */
export interface InvitedKey {
  lock: string;
  /** The lock's IANA zone: every time of the key is on its clock. */
  zone: string;
  type: EKeyType;
  message: string | null;
  /** The wire format (`M/D/YYYY h:mm:ss AM|PM` in `zone`), or null. */
  valid_from: string | null;
  valid_to: string | null;
  schedule_start: string | null;
  schedule_end: string | null;
  /** The key carries a door code (docs/design.md §4c): the page says one waits in the app, never the code. */
  door_code: boolean;
}

/**
 * What the sign-up page shows for a link: `open` with who sent which keys; `withdrawn` when every
 * key it offered has been revoked or deleted before sign-up.
 */
export type InvitationState =
  | { state: 'open'; email: string; name: string; locks: string[]; inviter: string | null; keys: InvitedKey[] }
  | { state: 'accepted'; email: string }
  | { state: 'withdrawn'; email: string }
  | { state: 'expired' }
  | { state: 'unknown' };

/** What a successful sign-up did. */
export interface SignUpResult {
  userId: string;
  email: string;
  /** How many pending eKeys became accepted. */
  acceptedKeys: number;
}

export interface InvitationServiceDependencies {
  invitations: InvitationRepository;
  users: UserRepository;
  ekeys: EKeyRepository;
  locks: LockRepository;
  /** Door codes (docs/design.md §4c): the page says when a key comes with one. */
  doorCodes?: DoorCodeRepository;
  mailer: InvitationMailer;
  logger: Logger;
  clock: Clock;
  transaction: <T>(work: () => T) => T;
  /** Told (after the commit) which locks' keys sign-up accepted; shared with the eKey service. */
  changes?: EKeyChangeNotifier;
  /** Base URL the acceptance links start with (the public URL, else the listening one). */
  baseUrl?: string;
}

/** The invitation link token is 256 random bits, base64url; anything else is not a link of ours. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export class InvitationService {
  private baseUrl: string;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: InvitationServiceDependencies) {
    this.baseUrl = deps.baseUrl ?? 'http://127.0.0.1:8787';
  }

  /** Sets where acceptance links point (called once the HTTP API listens). */
  setBaseUrl(url: string): void {
    this.baseUrl = url.replace(/\/+$/, '');
  }

  /** The acceptance link of a token. */
  linkFor(token: string): string {
    return `${this.baseUrl}/invitations/${token}`;
  }

  /**
   * Records a new invitation for an invited user. Synchronous so that it runs inside the caller's
   * transaction (the key and its invitation are written together or not at all).
   */
  issue(userId: string, invitedBy: string, now: number): IssuedInvitation {
    const token = newToken();
    const record: InvitationRecord = {
      id: newId(),
      tokenHash: sha256Hex(token),
      userId,
      invitedBy,
      expiresAt: now + INVITATION_TTL_MS,
      acceptedAt: null,
      createdAt: now,
      closedAt: null,
    };
    this.deps.invitations.insert(record);
    return { record, token };
  }

  /**
   * Sends the invitation in the background: the eKey is already committed, so a slow or failing
   * mail server must not fail the request. A failed delivery is logged without the link (a
   * secret); the operator sends the eKey again once e-mail works.
   */
  deliver(message: Omit<InvitationMessage, 'link'> & { token: string }): void {
    const { token, ...rest } = message;
    const full: InvitationMessage = { ...rest, link: this.linkFor(token) };
    const delivery = this.deps.mailer.send(full).then(
      () => {
        this.deps.logger.info(`eKey invitation for lock "${full.lockName}" sent to ${full.to}.`);
      },
      (error: unknown) => {
        const reason = describeError(error);
        // The link is a secret: it is logged only when no SMTP is configured at all (the documented
        // exception, docs/architecture.md "Cross-cutting rules"), never because sending failed.
        this.deps.logger.warn(
          `Could not e-mail the eKey invitation to ${full.to} (${reason}); its acceptance link is not logged while SMTP is configured. ` +
            'Once e-mail works, revoke that eKey and send it again.',
        );
      },
    );
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
  }

  /**
   * Closes the user's open invitations when they hold no pending eKey any more (the last one was
   * revoked or purged). Synchronous: it runs inside the transaction of that revocation, so no
   * sign-up can slip in between (docs/design.md §9b).
   */
  closeIfWithdrawn(userId: string, now: number): void {
    if (this.deps.ekeys.listPendingByUser(userId).length === 0) this.deps.invitations.closeAllFor(userId, now);
  }

  /** Resolves once every invitation handed to {@link deliver} has been sent or has failed. */
  async whenIdle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** What the link `token` stands for, without revealing anything for a bad or expired one. */
  describe(token: string): InvitationState {
    const found = this.find(token);
    if (found.state !== 'found') return found;
    const { invitation, user } = found;
    if (user.passwordHash !== null || invitation.acceptedAt !== null) return { state: 'accepted', email: user.email };
    const keys: InvitedKey[] = [];
    for (const key of this.deps.ekeys.listPendingByUser(user.id)) {
      const lock = this.deps.locks.findById(key.lock_id);
      if (lock === undefined) continue;
      const wire = (at: number | null): string | null => (at === null ? null : formatEKeyDateTime(at, lock.timeZone));
      keys.push({
        lock: lock.name,
        zone: lock.timeZone,
        type: key.type,
        message: key.message,
        valid_from: wire(key.valid_from),
        valid_to: wire(key.valid_to),
        schedule_start: key.schedule_start,
        schedule_end: key.schedule_end,
        door_code: this.hasDoorCode(key.id),
      });
    }
    if (keys.length === 0) return { state: 'withdrawn', email: user.email };
    const inviter = invitation.invitedBy === null ? null : (this.deps.users.findById(invitation.invitedBy)?.name ?? null);
    return { state: 'open', email: user.email, name: user.name, locks: keys.map((key) => key.lock), inviter, keys };
  }

  /** Whether the key has a door code that is not being taken away. */
  private hasDoorCode(ekeyId: string): boolean {
    const state = this.deps.doorCodes?.currentFor(ekeyId)?.state;
    return state !== undefined && state !== 'removing' && state !== 'removed';
  }

  /**
   * Completes sign-up through an invitation link: sets name and password, accepts the user's
   * pending eKeys and closes their invitations, all in one transaction.
   *
   * @throws ServiceError 404 `invitation_not_found` (unknown link), 410 `invitation_expired` or
   *   `invitation_withdrawn` (no pending key left), 409 `invitation_used` (the account already has a
   *   password), 400 `validation_failed`.
   */
  async signUp(token: string, input: { name?: string | undefined; password?: string | undefined }): Promise<SignUpResult> {
    const errors: FieldError[] = [];
    const name = (input.name ?? '').trim();
    const password = input.password ?? '';
    if (name === '' || Array.from(name).length > NAME_MAX_LENGTH || /\p{Cc}/u.test(name)) {
      errors.push({ field: '/name', message: `must be 1 to ${NAME_MAX_LENGTH} characters on one line` });
    } else {
      const problem = deceptiveTextProblem(name);
      if (problem !== null) errors.push({ field: '/name', message: problem });
    }
    if (password.length < MIN_PASSWORD_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
      errors.push({ field: '/password', message: `must be at least ${MIN_PASSWORD_LENGTH} characters` });
    }
    this.usableInvitation(token);
    if (errors.length > 0) throw validationFailed(errors, 'Please correct the form.');
    const passwordHash = await hashPassword(password);
    // Checked again inside: another sign-up may have completed while the password was being hashed.
    return this.activate(() => this.usableInvitation(token).user, name, passwordHash);
  }

  /**
   * Activates an invited account from the command line (`ekey-locks user add` for an invited
   * address): the same effect as signing up through the link — password set, pending keys accepted.
   * @throws ServiceError 404 when no invited (password-less) account has this e-mail address.
   */
  async activateInvited(email: string, input: { name: string; password: string }): Promise<SignUpResult> {
    const invited = (): NonNullable<ReturnType<UserRepository['findById']>> => {
      const user = this.deps.users.findByEmail(email);
      if (!user || user.passwordHash !== null) throw new ServiceError(404, 'invitation_not_found', 'No invited account has this e-mail address.');
      return user;
    };
    invited();
    if (input.password.length < MIN_PASSWORD_LENGTH || input.password.length > PASSWORD_MAX_LENGTH) {
      throw validationFailed([{ field: '/password', message: `must be at least ${MIN_PASSWORD_LENGTH} characters` }]);
    }
    const nameProblem = deceptiveTextProblem(input.name);
    if (nameProblem !== null) throw validationFailed([{ field: '/name', message: nameProblem }]);
    return this.activate(invited, input.name.trim() || invited().name, await hashPassword(input.password));
  }

  /** One transaction: set name and password, accept every pending key, close the invitations. */
  private activate(
    findUser: () => NonNullable<ReturnType<UserRepository['findById']>>,
    name: string,
    passwordHash: string,
  ): SignUpResult {
    const changedLocks = new Set<string>();
    const accepted: StoredEKey[] = [];
    const result = this.deps.transaction(() => {
      const user = findUser();
      const now = this.deps.clock.now();
      this.deps.users.update({ ...user, name, passwordHash });
      let acceptedKeys = 0;
      for (const key of this.deps.ekeys.listPendingByUser(user.id)) {
        const updated: StoredEKey = { ...key, status: 'accepted', updated_at: now };
        this.deps.ekeys.update(updated);
        accepted.push(updated);
        changedLocks.add(key.lock_id);
        acceptedKeys += 1;
      }
      this.deps.invitations.acceptAllFor(user.id, now);
      return { userId: user.id, email: user.email, acceptedKeys };
    });
    for (const lockId of changedLocks) this.deps.changes?.notify(lockId);
    for (const key of accepted) this.deps.changes?.notifyLifecycle({ kind: 'accepted', key });
    return result;
  }

  private usableInvitation(token: string): { invitation: InvitationRecord; user: NonNullable<ReturnType<UserRepository['findById']>> } {
    const found = this.find(token);
    switch (found.state) {
      case 'unknown':
        throw new ServiceError(404, 'invitation_not_found', 'This invitation link is not valid.');
      case 'expired':
        throw new ServiceError(410, 'invitation_expired', 'This invitation link has expired; ask for the eKey to be sent again.');
      case 'withdrawn':
        throw withdrawn();
      case 'found':
        if (found.user.passwordHash !== null || found.invitation.acceptedAt !== null) {
          throw new ServiceError(409, 'invitation_used', 'This invitation has already been accepted; sign in instead.');
        }
        if (this.deps.ekeys.listPendingByUser(found.user.id).length === 0) {
          throw new ServiceError(410, 'invitation_withdrawn', 'This invitation was withdrawn: the key it offered has been taken back.');
        }
        return found;
    }
  }

  private find(
    token: string,
  ):
    | { state: 'found'; invitation: InvitationRecord; user: NonNullable<ReturnType<UserRepository['findById']>> }
    | { state: 'expired' }
    | { state: 'withdrawn'; email: string }
    | { state: 'unknown' } {
    if (!TOKEN_PATTERN.test(token)) return { state: 'unknown' };
    const invitation = this.deps.invitations.findByTokenHash(sha256Hex(token));
    if (!invitation) return { state: 'unknown' };
    const user = this.deps.users.findById(invitation.userId);
    if (!user) return { state: 'unknown' };
    // Closed with its last pending key (docs/design.md §9b): nothing can be made with it any more.
    if (invitation.closedAt !== null) return { state: 'withdrawn', email: user.email };
    // An accepted invitation stays recognisable after its expiry, so the page can say "sign in".
    if (invitation.acceptedAt === null && user.passwordHash === null && invitation.expiresAt <= this.deps.clock.now()) {
      return { state: 'expired' };
    }
    return { state: 'found', invitation, user };
  }
}

function withdrawn(): ServiceError {
  return new ServiceError(
    410,
    'invitation_withdrawn',
    'This invitation was withdrawn: the eKey it was for is no longer offered. If you already have an account, sign in.',
  );
}
