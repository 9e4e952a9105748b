/**
 * A household for the eKey integration tests, built through the public API: the demo owner sends
 * each other member a key of one type on the Front Door, then everyone signs in over OAuth.
 */
import { DateTime } from 'luxon';
import { loginOverHttp } from '../../support/oauth-login.js';
import { startTestService, type TestService, type TestServiceOptions } from '../../support/test-service.js';

/** The roles of the authorization matrix. */
export const ROLES = ['owner', 'admin', 'anytime', 'scheduledIn', 'scheduledOut', 'guest', 'revoked', 'stranger'] as const;
export type Role = (typeof ROLES)[number];

export interface Member {
  id: string;
  email: string;
  token: string;
  /** The member's key on the Front Door (undefined for the stranger). */
  keyId?: string;
}

export interface Household {
  test: TestService;
  frontDoor: { id: string; zone: string };
  gardenGate: { id: string };
  members: Record<Role, Member>;
  /** Someone else's key: the target of "other user's key" requests. */
  bystander: Member & { keyId: string };
  request(member: Member, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
}

export interface ApiResponse {
  status: number;
  contentType: string;
  text: string;
  /** Parsed JSON body (undefined when the body is not JSON). */
  body: Record<string, unknown> & { code?: string; ekeys?: EKeyBody[]; locks?: LockBody[] };
}

export interface EKeyBody {
  id: string;
  name: string | null;
  type: string;
  status: string;
  valid_from: string | null;
  valid_to: string | null;
  schedule_start: string | null;
  schedule_end: string | null;
  message: string | null;
  user_id: string;
  lock_id: string;
}

export interface LockBody {
  id: string;
  name: string;
  bolt_state: string;
  online_status: string;
  your_role: string;
  ekey_id: string;
  supported_commands: string[];
}

/** A fixed Wednesday noon (UTC): the tests do not depend on the day they run. */
export const HOUSEHOLD_NOW = Date.UTC(2026, 5, 10, 12, 0, 0);

/** Sends a request with a bearer token and parses the answer. */
export async function call(
  baseUrl: string,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const init: RequestInit = {
    method,
    headers: {
      accept: 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
  };
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await fetch(`${baseUrl}${path}`, init);
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  let parsed: ApiResponse['body'] = {};
  if (contentType.includes('json') && text !== '') parsed = JSON.parse(text) as ApiResponse['body'];
  return { status: response.status, contentType, text, body: parsed };
}

const PASSWORD = 'correct horse battery';

/** Starts a service and builds the household of {@link ROLES} plus a bystander. */
export async function buildHousehold(options: TestServiceOptions = {}): Promise<Household> {
  const test = await startTestService(options);
  test.clock.set(HOUSEHOLD_NOW);
  const { demo, baseUrl, service } = test;
  const client = demo.clients[0];
  const owner = demo.users[0];
  const frontDoorInfo = demo.locks.find((lock) => lock.name === 'Front Door');
  const gardenGateInfo = demo.locks.find((lock) => lock.name === 'Garden Gate');
  if (!client || !owner || !frontDoorInfo || !gardenGateInfo) throw new Error('demo household incomplete');
  const zone = service.repositories.locks.findById(frontDoorInfo.id)?.timeZone ?? 'UTC';

  const login = async (email: string, password: string): Promise<string> =>
    (await loginOverHttp({ baseUrl, client, email, password })).access_token;

  const newMember = async (email: string, name: string): Promise<{ id: string; email: string; token: string }> => {
    const user = await service.services.users.create({ email, name, password: PASSWORD });
    return { id: user.id, email, token: await login(email, PASSWORD) };
  };

  const ownerMember: Member = { id: owner.id, email: owner.email, token: await login(owner.email, owner.password) };
  ownerMember.keyId = service.repositories.ekeys.findLive(owner.id, frontDoorInfo.id)?.id;

  const send = async (email: string, body: Record<string, unknown>): Promise<string> => {
    const answer = await call(baseUrl, ownerMember.token, 'POST', '/ekey', { email, lock_id: frontDoorInfo.id, ...body });
    if (answer.status !== 201) throw new Error(`sending a key to ${email} failed: ${answer.status} ${answer.text}`);
    return String(answer.body.id);
  };

  const localHour = DateTime.fromMillis(HOUSEHOLD_NOW, { zone }).hour;
  const at = (hour: number): string => `0 ${(hour + 24) % 24} * * * *`;
  const specs: Record<Exclude<Role, 'owner' | 'stranger'>, Record<string, unknown>> = {
    admin: { type: 'admin' },
    anytime: { type: 'anytime', name: 'Cleaner' },
    // Open from an hour ago to an hour from now (lock time): inside its window now.
    scheduledIn: { type: 'scheduled', schedule_start: at(localHour - 1), schedule_end: at(localHour + 1) },
    // Open from two to four hours from now: outside its window now.
    scheduledOut: { type: 'scheduled', schedule_start: at(localHour + 2), schedule_end: at(localHour + 4) },
    guest: { type: 'guest' },
    revoked: { type: 'anytime' },
  };

  const members = { owner: ownerMember } as Record<Role, Member>;
  for (const role of Object.keys(specs) as (keyof typeof specs)[]) {
    const member: Member = await newMember(`${role.toLowerCase()}@example.com`, `Member ${role}`);
    member.keyId = await send(member.email, specs[role]);
    members[role] = member;
  }
  const revokedKey = members.revoked.keyId ?? '';
  const revocation = await call(baseUrl, ownerMember.token, 'DELETE', `/ekey/${revokedKey}`);
  if (revocation.status !== 200) throw new Error(`revoking failed: ${revocation.text}`);
  members.stranger = await newMember('stranger@example.com', 'Stranger Danger');

  const bystanderUser = await newMember('bystander@example.com', 'Bystander Bee');
  const bystander = { ...bystanderUser, keyId: await send(bystanderUser.email, { type: 'anytime', name: 'Bystander key' }) };

  return {
    test,
    frontDoor: { id: frontDoorInfo.id, zone },
    gardenGate: { id: gardenGateInfo.id },
    members,
    bystander,
    request: (member, method, path, body, headers) => call(baseUrl, member.token, method, path, body, headers),
  };
}
