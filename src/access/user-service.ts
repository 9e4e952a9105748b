import { deceptiveTextProblem } from '../domain/display-text.js';
import type { Clock } from '../domain/clock.js';
import { conflict, notFound, validationFailed } from '../domain/errors.js';
import { newId, normalizeId } from '../domain/ids.js';
import { hashPassword } from '../auth/password.js';
import type { UserRecord, UserRepository } from '../store/user-repository.js';

/** The public face of a user (spec: User = id, name). */
export interface UserView {
  id: string;
  name: string;
}

export interface NewUser {
  email: string;
  name: string;
  /** Omit to create an invited user who cannot log in until they sign up. */
  password?: string;
  ekeyQuota?: number | null;
  canSendEkeys?: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD_LENGTH = 8;

/**
 * Decides who may see whom. `GET /users/{id}`: oneself, and users holding keys on a lock where
 * the caller is owner or admin (docs/design.md §3 Users). The lock-relationship check is supplied by the
 * eKey layer so this service stays independent of it.
 */
export type UserVisibility = (callerId: string, targetId: string) => boolean;

export class UserService {
  private visibility: UserVisibility = () => false;

  constructor(
    private readonly users: UserRepository,
    private readonly clock: Clock,
  ) {}

  /** Installs the rule that lets owners and admins see the users holding keys on their locks. */
  setVisibility(rule: UserVisibility): void {
    this.visibility = rule;
  }

  view(user: UserRecord): UserView {
    return { id: user.id, name: user.name };
  }

  /** GET /me */
  me(callerId: string): UserView {
    const user = this.users.findById(callerId);
    if (!user) throw notFound('user');
    return this.view(user);
  }

  /** GET /users/{user_id}: 404 for anyone the caller may not see. */
  get(callerId: string, targetId: string): UserView {
    const id = normalizeId(targetId);
    const user = this.users.findById(id);
    if (!user || (id !== callerId && !this.visibility(callerId, id))) throw notFound('user');
    return this.view(user);
  }

  findByEmail(email: string): UserRecord | undefined {
    return this.users.findByEmail(email);
  }

  findById(id: string): UserRecord | undefined {
    return this.users.findById(normalizeId(id));
  }

  list(): UserRecord[] {
    return this.users.list();
  }

  /** Creates a user; 409 `email_taken` when the address is in use (case-insensitively). */
  async create(input: NewUser, id: string = newId()): Promise<UserRecord> {
    const errors = [];
    if (!EMAIL.test(input.email.trim())) errors.push({ field: '/email', message: 'must be an e-mail address' });
    if (input.name.trim() === '' || input.name.length > 100) errors.push({ field: '/name', message: 'must be 1 to 100 characters' });
    else {
      const problem = deceptiveTextProblem(input.name);
      if (problem !== null) errors.push({ field: '/name', message: problem });
    }
    if (input.password !== undefined && input.password.length < MIN_PASSWORD_LENGTH) {
      errors.push({ field: '/password', message: `must be at least ${MIN_PASSWORD_LENGTH} characters` });
    }
    if (errors.length > 0) throw validationFailed(errors);
    if (this.users.findByEmail(input.email)) throw conflict('email_taken', 'A user with this e-mail address already exists.');
    const user: UserRecord = {
      id,
      email: input.email.trim(),
      name: input.name.trim(),
      passwordHash: input.password === undefined ? null : await hashPassword(input.password),
      ekeyQuota: input.ekeyQuota ?? null,
      canSendEkeys: input.canSendEkeys ?? true,
      createdAt: this.clock.now(),
    };
    this.users.insert(user);
    return user;
  }

  /** Sets a password (sign-up through an invitation, or `user add` for an invited address). */
  async setPassword(userId: string, password: string, name?: string): Promise<UserRecord> {
    const user = this.users.findById(userId);
    if (!user) throw notFound('user');
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw validationFailed([{ field: '/password', message: `must be at least ${MIN_PASSWORD_LENGTH} characters` }]);
    }
    const nameProblem = name === undefined ? null : deceptiveTextProblem(name);
    if (nameProblem !== null) throw validationFailed([{ field: '/name', message: nameProblem }]);
    const updated = { ...user, passwordHash: await hashPassword(password), name: name?.trim() || user.name };
    this.users.update(updated);
    return updated;
  }

  update(user: UserRecord): void {
    this.users.update(user);
  }
}
