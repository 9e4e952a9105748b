/** The REST API as the app uses it: bearer tokens, one retry after a refresh, problems as errors. */
import { plainProblemText } from './explain.js';
import { accessToken, refreshNow } from './session.js';

export type BoltState = 'locked' | 'unlocked' | 'jammed' | 'unknown';
export type EKeyType = 'owner' | 'admin' | 'anytime' | 'scheduled' | 'guest';
export type NotUsableReason = 'pending' | 'revoked' | 'not_yet_valid' | 'expired' | 'outside_schedule';

export interface Me {
  id: string;
  name: string;
  email?: string;
}

export interface Lock {
  id: string;
  name: string;
  bolt_state: BoltState;
  online_status: 'online' | 'offline';
  time_zone: string;
  battery_level: number | null;
  last_seen_at: string | null;
  your_role: 'owner' | 'admin' | 'guest';
  ekey_id: string;
  /** A keypad is paired with the lock: its eKeys can carry door codes. */
  keypad: boolean;
}

export type DoorCodeState = 'waiting' | 'setting' | 'set' | 'failed' | 'removing' | 'removed';

/** An eKey's door code (docs/design.md §4c): six digits the lock's keypad takes, with the key's window. */
export interface DoorCode {
  code: string | null;
  state: DoorCodeState;
  enforced_by: 'lock' | 'service';
  failure_reason: string | null;
  updated_at: string;
}

export interface EKey {
  id: string;
  name: string | null;
  type: EKeyType;
  status: 'pending' | 'accepted' | 'revoked';
  valid_from: string | null;
  valid_to: string | null;
  schedule_start: string | null;
  schedule_end: string | null;
  message: string | null;
  user_id: string;
  lock_id: string;
  door_code: DoorCode | null;
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
  type: 'lock' | 'unlock' | 'battery';
  lock_id: string;
  performer?: { id: string; name: string };
  timestamp: string;
  value?: number;
}

export interface EventPage {
  lock_events: LockEvent[];
  metadata: { limit: number; count: number; previous?: string; next?: string };
}

export interface LockCommand {
  id: string;
  lock_id: string;
  type: 'lock' | 'unlock';
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
