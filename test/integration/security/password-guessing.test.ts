/**
 * Issue #32, findings 3 and 4: one budget of password guesses per account (10 in 15 minutes),
 * reserved before the asynchronous scrypt, for sign-in and for the current password of
 * `PUT /me/password` alike. Real HTTP on loopback; the per-address limit of the OAuth routes is
 * 10,000 a minute in the test service, so every 429 at sign-in here is the account's.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OAuthLoginError, authorize, loginOverHttp } from '../../support/oauth-login.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { call } from '../../support/demo-process.js';
import { demoParts } from './demo-parts.js';

const SETUP_TIMEOUT_MS = 120_000;

describe('password guessing per account (findings 3 and 4)', () => {
  let test: TestService;
  let parts: ReturnType<typeof demoParts>;

  /** The status of one sign-in over HTTP: 302 signed in, 401 wrong password, 429 throttled. */
  const attempt = async (email: string, password: string): Promise<number> => {
    try {
      await authorize({ baseUrl: test.baseUrl, client: parts.client, email, password });
      return 302;
    } catch (error) {
      if (error instanceof OAuthLoginError) return error.status;
      throw error;
    }
  };
  const evaluatedFailures = (): number => test.logger.lines.filter((line) => line.message.startsWith('oauth: failed sign-in')).length;

  beforeAll(async () => {
    test = await startTestService();
    parts = demoParts(test.demo);
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await test.close();
  });

  it('evaluates at most 10 of 60 parallel wrong passwords for one account; the rest are 429 before any scrypt', async () => {
    const user = parts.others[0];
    if (!user) throw new Error('demo user missing');
    const before = evaluatedFailures();
    const statuses = await Promise.all(Array.from({ length: 60 }, (_, index) => attempt(user.email, `wrong-guess-${index}`)));
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(50);
    expect(evaluatedFailures() - before).toBe(10);
    // The right password too waits out the window; another account is not affected.
    expect(await attempt(user.email, user.password)).toBe(429);
    expect(await attempt(parts.owner.email, parts.owner.password)).toBe(302);
  }, SETUP_TIMEOUT_MS);

  it('counts wrong current passwords of PUT /me/password against the same budget as sign-in', async () => {
    const user = parts.others[1];
    if (!user) throw new Error('demo user missing');
    const stolen = (await loginOverHttp({ baseUrl: test.baseUrl, client: parts.client, email: user.email, password: user.password })).access_token;
    // Nine guesses with the stolen token (the route's per-address limit is 10 a minute) …
    for (let index = 0; index < 9; index += 1) {
      const wrong = await call(test.baseUrl, 'PUT', '/me/password', { token: stolen, body: { current_password: `guess-${index}`, new_password: 'taken-over-password' } });
      expect(wrong.status).toBe(400);
      expect(wrong.json.code).toBe('wrong_password');
    }
    // … and one at sign-in use up the account's ten.
    expect(await attempt(user.email, 'guess-at-sign-in')).toBe(401);
    const throttled = await call(test.baseUrl, 'PUT', '/me/password', { token: stolen, body: { current_password: user.password, new_password: 'taken-over-password' } });
    expect(throttled.status).toBe(429);
    expect(throttled.json.code).toBe('too_many_password_attempts');
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(throttled.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    // The owner of the account cannot sign in either until the window passes: the guesses were counted.
    expect(await attempt(user.email, user.password)).toBe(429);
    expect(test.logger.text()).not.toContain('guess-');
  }, SETUP_TIMEOUT_MS);
});
