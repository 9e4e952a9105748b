import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { request, type IncomingMessage } from 'node:http';
import { newToken, sha256Hex } from '../../../src/auth/secrets.js';
import { authorize, OAuthLoginError } from '../../support/oauth-login.js';
import { startCommandFixture, type CommandFixture } from '../commands/command-fixture.js';
import { failOnUnhandledRejections } from '../../support/unhandled-rejections.js';

/**
 * The real service (SQLite file, HTTP on loopback) under faults and load it must survive without
 * crashing or stopping to answer: a store that refuses writes mid-request, a thousand event
 * streams at once, and a password guessed from many addresses (docs/architecture.md "Limits and
 * resilience").
 */
let fx: CommandFixture;

beforeAll(async () => {
  fx = await startCommandFixture({ signInOthers: false });
});

afterAll(async () => {
  await fx.test.close();
});
failOnUnhandledRejections({ uncaughtExceptions: true });

const ekeyCount = (): number => (fx.test.service.db.prepare('SELECT COUNT(*) AS n FROM ekeys').get() as { n: number }).n;

describe('a store that fails mid-request', () => {
  it('answers 503 problem+json storage_unavailable with Retry-After, writes nothing, keeps answering, and recovers', async () => {
    const before = ekeyCount();
    const other = fx.test.demo.users[1];
    if (other === undefined) throw new Error('demo users missing');
    // SQLite itself refuses every write from now on, as on a disk that turned read-only.
    fx.test.service.db.pragma('query_only = ON');
    try {
      const refused = await fx.call(fx.owner.token, 'POST', '/ekey', { email: other.email, lock_id: fx.gardenGate, type: 'anytime' });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.headers.get('retry-after')).toBe('30');
      expect(refused.body).toMatchObject({ status: 503, code: 'storage_unavailable' });
      expect(JSON.stringify(refused.body)).not.toMatch(/SQLITE|readonly|\/tmp/i);
      expect(fx.test.logger.lines.some((line) => line.level === 'error' && line.message.includes('storage: attempt to write a readonly database'))).toBe(true);
      // Reads still work while writes fail.
      expect((await fx.call(fx.owner.token, 'GET', '/me')).status).toBe(200);
      expect((await fx.call(fx.owner.token, 'GET', `/users/${fx.owner.id}/locks`)).status).toBe(200);
    } finally {
      fx.test.service.db.pragma('query_only = OFF');
    }
    expect(ekeyCount()).toBe(before);
    const sent = await fx.call(fx.owner.token, 'POST', '/ekey', { email: other.email, lock_id: fx.gardenGate, type: 'anytime' });
    expect(sent.status).toBe(201);
    expect(ekeyCount()).toBe(before + 1);
  });
});

/** A user with an anytime key on the Front Door and a bearer token, written straight to the store. */
function seedUser(index: number): { id: string; token: string } {
  const { repositories, clock } = fx.test.service;
  const id = randomUUID();
  const now = clock.now();
  repositories.users.insert({ id, email: `streamer${index}@example.com`, name: `Streamer ${index}`, passwordHash: null, ekeyQuota: null, canSendEkeys: false, createdAt: now });
  fx.grantKey(id, fx.frontDoor);
  const token = newToken();
  const clientId = fx.test.demo.clients[0]?.client_id ?? '';
  repositories.tokens.insertToken({
    id: randomUUID(),
    kind: 'access',
    tokenHash: sha256Hex(token),
    familyId: randomUUID(),
    codeHash: null,
    clientId,
    userId: id,
    expiresAt: now + 3_600_000,
    usedAt: null,
    revokedAt: null,
    createdAt: now,
  });
  return { id, token };
}

interface OpenedStream {
  status: number;
  retryAfter: string | undefined;
  contentType: string | undefined;
  response: IncomingMessage;
}

/** Opens one event stream on its own connection; resolves at the response headers. */
function openStream(token: string): Promise<OpenedStream> {
  const url = new URL(`${fx.test.baseUrl}/locks/${fx.frontDoor}/events/stream`);
  return new Promise((resolve, reject) => {
    const sent = request(url, { agent: false, headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } }, (response) => {
      const retryAfter = response.headers['retry-after'];
      resolve({ status: response.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined, contentType: response.headers['content-type'], response });
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('a thousand event streams at once (docs/design.md §9: 10 per user, 500 in all)', () => {
  it('serves 500, answers the rest 429 problem+json with Retry-After, keeps answering the API, and frees every slot', async () => {
    const users = Array.from({ length: 100 }, (_, index) => seedUser(index));
    const streams = await Promise.all(users.flatMap((user) => Array.from({ length: 10 }, () => openStream(user.token))));
    try {
      expect(streams).toHaveLength(1000);
      const served = streams.filter((stream) => stream.status === 200);
      const refused = streams.filter((stream) => stream.status === 429);
      expect(served).toHaveLength(500);
      expect(refused).toHaveLength(500);
      for (const stream of served) expect(stream.contentType).toMatch(/^text\/event-stream/);
      for (const stream of refused) {
        expect(stream.retryAfter).toBe('30');
        expect(stream.contentType).toMatch(/^application\/problem\+json/);
      }
      expect(fx.test.service.events.streams.openCount).toBe(500);

      // The API still answers, for a user with streams and for one without.
      expect((await fx.call(fx.owner.token, 'GET', `/users/${fx.owner.id}/locks`)).status).toBe(200);
      const streamer = users[0];
      if (streamer === undefined) throw new Error('no users');
      expect((await fx.call(streamer.token, 'GET', '/me')).status).toBe(200);
      expect((await fx.call(streamer.token, 'GET', `/locks/${fx.frontDoor}/events`)).status).toBe(200);
    } finally {
      for (const stream of streams) stream.response.destroy();
    }
    const streamsService = fx.test.service.events.streams;
    for (let turn = 0; streamsService.openCount > 0 && turn < 10_000; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(streamsService.openCount).toBe(0);
    expect(fx.test.service.events.hub.listenerCount()).toBe(0);
    const again = await openStream(users[1]?.token ?? '');
    expect(again.status).toBe(200);
    again.response.destroy();
  });
});

describe('per-account throttling of failed sign-ins (beside the per-address limit)', () => {
  // The per-address limit is 10,000 a minute in the test service: every 429 here is the account's.
  it('after 10 wrong passwords for one account, that account is refused 429 even with the right password; others are not', async () => {
    const [owner, other] = fx.test.demo.users;
    const client = fx.test.demo.clients[0];
    if (owner === undefined || other === undefined || client === undefined) throw new Error('demo incomplete');
    const attempt = async (email: string, password: string): Promise<number> => {
      try {
        await authorize({ baseUrl: fx.test.baseUrl, client, email, password });
        return 302;
      } catch (error) {
        if (error instanceof OAuthLoginError) return error.status;
        throw error;
      }
    };
    for (let index = 0; index < 10; index += 1) expect(await attempt(other.email, `wrong-${index}`)).toBe(401);
    expect(await attempt(other.email, other.password)).toBe(429);
    expect(await attempt(other.email.toUpperCase(), other.password)).toBe(429);
    // An account nobody guessed at signs in as before.
    expect(await attempt(owner.email, owner.password)).toBe(302);
    expect(fx.test.logger.lines.some((line) => line.level === 'warn' && line.message.includes('sign-in throttled'))).toBe(true);
  });
});
