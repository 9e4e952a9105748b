import axios, { type AxiosInstance, type AxiosResponse, type Method } from 'axios';
import { ApiError } from './api-error.js';
import type { Calendar, CalendarRequest, EKey, Gateway, Lock, Problem, SendEKeyRequest, UpdateEKeyRequest, User } from './api-types.js';

/** Where the client gets its bearer token: a fixed string, or a function (for refreshing callers). */
export type AccessTokenSource = string | (() => string | Promise<string>);

export interface EKeyLocksClientOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  accessToken: AccessTokenSource;
  /** Sent as User-Agent (the spec encourages a descriptive one). */
  userAgent?: string;
  /** Per-request timeout in milliseconds (default 15 000). */
  timeoutMs?: number;
}

/**
 * A typed client of the REST API: users, eKeys and lock lists. Every method resolves with the
 * response body, or rejects with an {@link ApiError} carrying the problem+json body.
 *
 * @example
 * const client = new EKeyLocksClient({ baseUrl, accessToken: tokens.access_token });
 * const me = await client.me();
 * const key = await client.sendEKey({ email: 'guest@example.com', lock_id, type: 'guest' });
 * await client.revokeEKey(key.id);
 */
export class EKeyLocksClient {
  /** The underlying axios instance, for requests this client does not wrap yet. */
  readonly http: AxiosInstance;

  constructor(private readonly options: EKeyLocksClientOptions) {
    this.http = axios.create({
      baseURL: options.baseUrl.replace(/\/+$/, ''),
      timeout: options.timeoutMs ?? 15_000,
      headers: { accept: 'application/json', 'user-agent': options.userAgent ?? 'ekey-locks-client' },
      // Status handling is ours: every non-2xx becomes an ApiError with the problem body.
      validateStatus: () => true,
    });
  }

  /** `GET /me`. */
  me(): Promise<User> {
    return this.request<User>('GET', '/me');
  }

  /** `GET /users/{user_id}`. */
  getUser(userId: string): Promise<User> {
    return this.request<User>('GET', `/users/${encodeURIComponent(userId)}`);
  }

  /** `GET /users/{user_id}/locks`: the locks the user holds a usable eKey for (oneself only). */
  async listUserLocks(userId: string): Promise<Lock[]> {
    return (await this.request<{ locks: Lock[] }>('GET', `/users/${encodeURIComponent(userId)}/locks`)).locks;
  }

  /** `GET /gateways` (docs/design.md §4e): the gateway devices, for owners and admins of a lock. */
  async listGateways(): Promise<Gateway[]> {
    return (await this.request<{ gateways: Gateway[] }>('GET', '/gateways')).gateways;
  }

  /** `POST /ekey`: sends an eKey (unknown addresses are invited and get a pending key). */
  sendEKey(body: SendEKeyRequest): Promise<EKey> {
    return this.request<EKey>('POST', '/ekey', body);
  }

  /** `GET /ekey/{ekey_id}`. */
  getEKey(ekeyId: string): Promise<EKey> {
    return this.request<EKey>('GET', `/ekey/${encodeURIComponent(ekeyId)}`);
  }

  /** `PUT /ekey/{ekey_id}`: `null` resets a property, an absent one is unchanged. */
  updateEKey(ekeyId: string, patch: UpdateEKeyRequest): Promise<EKey> {
    return this.request<EKey>('PUT', `/ekey/${encodeURIComponent(ekeyId)}`, patch);
  }

  /** `DELETE /ekey/{ekey_id}`: revokes; resolves with the revoked eKey. */
  revokeEKey(ekeyId: string): Promise<EKey> {
    return this.request<EKey>('DELETE', `/ekey/${encodeURIComponent(ekeyId)}`);
  }

  /** `DELETE /ekey/{ekey_id}?purge=true`: revokes and removes the record. */
  deleteEKey(ekeyId: string): Promise<EKey> {
    return this.request<EKey>('DELETE', `/ekey/${encodeURIComponent(ekeyId)}?purge=true`);
  }

  /** `GET /locks/{lock_id}/ekeys`: all keys for owners and admins, one's own for other holders. */
  async listLockEKeys(lockId: string): Promise<EKey[]> {
    return (await this.request<{ ekeys: EKey[] }>('GET', `/locks/${encodeURIComponent(lockId)}/ekeys`)).ekeys;
  }

  /** `POST /calendars` (docs/design.md §12): connects a rental calendar to locks one owns; resolves once its feed was read. */
  createCalendar(body: CalendarRequest & { url: string; lock_ids: string[] }): Promise<Calendar> {
    return this.request<Calendar>('POST', '/calendars', body);
  }

  /** `GET /calendars`: the rental calendars of the locks one owns. */
  async listCalendars(): Promise<Calendar[]> {
    return (await this.request<{ calendars: Calendar[] }>('GET', '/calendars')).calendars;
  }

  /** `GET /calendars/{id}`. */
  getCalendar(calendarId: string): Promise<Calendar> {
    return this.request<Calendar>('GET', `/calendars/${encodeURIComponent(calendarId)}`);
  }

  /** `PUT /calendars/{id}`: `null` resets a property, an absent one is unchanged. */
  updateCalendar(calendarId: string, patch: CalendarRequest): Promise<Calendar> {
    return this.request<Calendar>('PUT', `/calendars/${encodeURIComponent(calendarId)}`, patch);
  }

  /** `DELETE /calendars/{id}`: removes it; every code it made comes off its lock. */
  async deleteCalendar(calendarId: string): Promise<void> {
    await this.request<unknown>('DELETE', `/calendars/${encodeURIComponent(calendarId)}`);
  }

  /** `POST /calendars/{id}/refresh`: reads the feed now; resolves after it. */
  refreshCalendar(calendarId: string): Promise<Calendar> {
    // An empty JSON body: a POST without one would go out with a form content type, which the API refuses.
    return this.request<Calendar>('POST', `/calendars/${encodeURIComponent(calendarId)}/refresh`, {});
  }

  /** Sends one authenticated request; resolves with the body of a 2xx answer. */
  async request<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const token = typeof this.options.accessToken === 'string' ? this.options.accessToken : await this.options.accessToken();
    const response: AxiosResponse<unknown> = await this.http.request({
      method,
      url: path,
      headers: { authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { data: body }),
    });
    if (response.status >= 200 && response.status < 300) return response.data as T;
    throw new ApiError(response.status, isProblem(response.data) ? response.data : undefined);
  }
}

function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && 'status' in value && 'code' in value;
}
