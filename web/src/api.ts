/** The REST API as the app uses it: bearer tokens, one retry after a refresh, problems as errors. */
import { plainProblemText } from './explain.js';
import { accessToken, refreshNow } from './session.js';

/** The commands the app sends: lock, unlock, and unlatch (`Open`) where the lock can. */
export type CommandType = 'lock' | 'unlock' | 'unlatch';
/**
 * The API's bodies as the typed client declares them (src/client/api-types.ts, held equal to the
 * server's by test/unit/client/api-types.test.ts); type-only, so nothing of it is in the bundle.
 */
export type { Booking, BookingDoorCode, Calendar, DoorCode, EKey, EKeyType, Lock } from '../../src/client/api-types.js';
import type { EKey, Lock } from '../../src/client/api-types.js';
export type BoltState = Lock['bolt_state'];
export type DoorCodeState = NonNullable<EKey['door_code']>['state'];
export type NotUsableReason = 'pending' | 'revoked' | 'not_yet_valid' | 'expired' | 'outside_schedule';

export interface Me {
  id: string;
  name: string;
  email?: string;
}

export interface OwnKey extends EKey {
  lock_name: string;
  lock_time_zone: string;
  usable_now: boolean;
  not_usable_because: NotUsableReason | null;
  next_usable_at: string | null;
  usable_until: string | null;
}

export interface LockEvent {
  id: string;
  /** `ring`: someone rang at an Opener; `keypad_refused`: the lock refused a code typed at its keypad (docs/design.md §4c, §4d). */
  type: 'lock' | 'unlock' | 'battery' | 'ring' | 'keypad_refused';
  lock_id: string;
  performer?: { id: string; name: string };
  timestamp: string;
  value?: number;
  /** An unlock that also pulled the latch: the door was opened (docs/design.md §4d). */
  unlatched?: true;
  /** A ring the Opener opened the door on. */
  opened?: true;
  /** The Opener mode switched on (an unlock) or off (a lock). */
  mode?: 'ring_to_open' | 'continuous_mode';
  /** A door code typed at the keypad. */
  via?: 'keypad';
  /** The rental stay whose door code it was (docs/design.md §12). */
  booking?: { uid: string; summary: string };
}

export interface EventPage {
  lock_events: LockEvent[];
  metadata: { limit: number; count: number; previous?: string; next?: string };
}

export interface LockCommand {
  id: string;
  lock_id: string;
  type: CommandType;
  status: 'created' | 'processing' | 'completed' | 'failed';
  failure_reason: string | null;
}

export interface Problem {
  status: number;
  code?: string;
  detail?: string;
  errors?: { field: string; message: string }[];
  not_usable_because?: NotUsableReason;
  next_usable_at?: string | null;
  usable_until?: string | null;
  lock_time_zone?: string;
  ekey_id?: string;
}

/** A refused request; its message is the problem in the user's words (never the service's wording). */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(plainProblemText(problem));
  }
}

async function send(method: string, path: string, token: string, body: unknown): Promise<Response> {
  return fetch(new URL(path, location.origin), {
    method,
    headers: {
      accept: 'application/json',
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Calls the API; a 401 refreshes the tokens once and retries. Throws ApiError with the problem. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response = await send(method, path, await accessToken(), body);
  if (response.status === 401) response = await send(method, path, await refreshNow(), body);
  const text = await response.text();
  const parsed: unknown = text === '' ? undefined : JSON.parse(text);
  if (!response.ok) throw new ApiError({ status: response.status, ...(parsed as Partial<Problem> | undefined) });
  return parsed as T;
}

export const get = <T>(path: string): Promise<T> => api<T>('GET', path);
