/**
 * The demo household over HTTP for the command tests: the owner (Front Door with a simulated
 * lock, Garden Gate without a gateway connection) and the three key-less users, all signed in.
 */
import { randomUUID } from 'node:crypto';
import { loginOverHttp } from '../../support/oauth-login.js';
import { untilCommandFinished } from '../../support/polling.js';
import { startTestService, type TestService, type TestServiceOptions } from '../../support/test-service.js';

export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export interface CommandFixture {
  test: TestService;
  owner: { id: string; token: string };
  /** Demo users holding no key at first. */
  others: { id: string; token: string }[];
  frontDoor: string;
  gardenGate: string;
  /** The demo's simulated Nuki. */
  backDoor: string;
  /** The demo's simulated Nuki Opener (docs/design.md §4d). */
  buildingDoor: string;
  /** The demo's simulated TTLock (docs/design.md §4f). */
  sideDoor: string;
  call(token: string, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer>;
  /** Sends one demo control line and returns the parsed answer. */
  control(line: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Polls GET until the command is completed or failed (bounded). */
  untilFinished(token: string, lockId: string, commandId: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** The owner's entry of a lock in GET /users/{id}/locks. */
  ownerLock(lockId: string): Promise<Record<string, unknown> | undefined>;
  /** Gives `userId` a key on a lock directly in the store (the eKey API is another issue's). */
  grantKey(userId: string, lockId: string, fields?: { type?: string; status?: string; validFrom?: number | null; validTo?: number | null }): string;
}

/** `signInOthers: false` signs in the owner only (each sign-in costs a password hash). */
export async function startCommandFixture(options: TestServiceOptions & { signInOthers?: boolean } = {}): Promise<CommandFixture> {
  const { signInOthers = true, ...serviceOptions } = options;
  const test = await startTestService(serviceOptions);
  const client = test.demo.clients[0];
  if (!client) throw new Error('demo has no client');
  const tokens = await Promise.all(
    test.demo.users.slice(0, signInOthers ? undefined : 1).map(async (user) => ({
      id: user.id,
      token: (await loginOverHttp({ baseUrl: test.baseUrl, client, email: user.email, password: user.password })).access_token,
    })),
  );
  const [owner, ...others] = tokens;
  if (!owner) throw new Error('demo has no owner');
  const frontDoor = test.demo.locks.find((lock) => lock.gateway)?.id;
  const gardenGate = test.demo.locks.find((lock) => !lock.gateway)?.id;
  const backDoor = test.demo.locks.find((lock) => lock.family === 'nuki')?.id;
  const buildingDoor = test.demo.locks.find((lock) => lock.family === 'nuki-opener')?.id;
  const sideDoor = test.demo.locks.find((lock) => lock.family === 'ttlock')?.id;
  if (frontDoor === undefined || gardenGate === undefined || backDoor === undefined || buildingDoor === undefined || sideDoor === undefined) throw new Error('demo locks missing');

  const call = async (token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer> => {
    const response = await fetch(`${test.baseUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  };

  const fixture: CommandFixture = {
    test,
    owner,
    others,
    frontDoor,
    gardenGate,
    backDoor,
    buildingDoor,
    sideDoor,
    call,
    async control(line) {
      const control = test.service.demoControl;
      if (!control) throw new Error('demo control missing');
      return JSON.parse(await control.handleLine(JSON.stringify(line))) as Record<string, unknown>;
    },
    untilFinished(token, lockId, commandId, timeoutMs = 10_000) {
      const read = async (): Promise<Record<string, unknown>> => {
        const answer = await call(token, 'GET', `/locks/${lockId}/commands/${commandId}`);
        if (answer.status !== 200) throw new Error(`GET command answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        return answer.body;
      };
      return untilCommandFinished(read, { timeoutMs, between: () => test.service.lockSubsystem.engine.idle() });
    },
    async ownerLock(lockId) {
      const answer = await call(owner.token, 'GET', `/users/${owner.id}/locks`);
      const locks = answer.body.locks as Record<string, unknown>[] | undefined;
      return locks?.find((lock) => lock.id === lockId);
    },
    grantKey(userId, lockId, fields = {}) {
      const id = randomUUID();
      const now = test.clock.now();
      test.service.db
        .prepare(
          `INSERT INTO ekeys (id, lock_id, user_id, name, type, status, valid_from, valid_to, created_at, updated_at)
           VALUES (?, ?, ?, 'Test key', ?, ?, ?, ?, ?, ?)`,
        )
        .run(id, lockId, userId, fields.type ?? 'anytime', fields.status ?? 'accepted', fields.validFrom ?? null, fields.validTo ?? null, now, now);
      return id;
    },
  };
  return fixture;
}

/** Resolves once the runtime reports the lock online (bounded). */
export async function untilOnline(fixture: CommandFixture, lockId: string, timeoutMs = 5_000): Promise<void> {
  const runtime = fixture.test.service.lockSubsystem.runtime;
  if (runtime.isReachable(lockId)) return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      runtime.off('change', listener);
      reject(new Error(`lock ${lockId} not online within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (): void => {
      if (!runtime.isReachable(lockId)) return;
      clearTimeout(timer);
      runtime.off('change', listener);
      resolve();
    };
    runtime.on('change', listener);
  });
}
