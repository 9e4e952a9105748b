import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Database from '../../../src/store/sqlite-driver.js';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../../src/service-root.js';
import { sha256Hex } from '../../../src/auth/secrets.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import type { TestService } from '../../support/test-service.js';
import { CHALLENGE, VERIFIER, demoCode, demoParties, demoTokens, postLogin, postOAuth, startOAuthService } from './oauth-test-client.js';

describe('OAuth hardening', () => {
  describe('rate limit', () => {
    let t: TestService;
    beforeAll(async () => {
      t = await startOAuthService({ config: { api: { oauth_rate_limit_per_minute: 3 } } });
    });
    afterAll(async () => {
      await t.close();
    });

    it('answers 429 with Retry-After once a client IP exceeds the limit of a route', async () => {
      const call = (): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> =>
        postOAuth(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'nobody' });
      for (let i = 0; i < 3; i += 1) expect((await call()).status).toBe(401);
      const limited = await call();
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.body.error).toBe('rate_limited');
    });

    it('limits the sign-in form too (HTML answer)', async () => {
      const { client, user } = demoParties(t);
      const attempt = (): Promise<Response> => postLogin(t, { clientId: client.client_id, redirectUri: client.redirect_uri, email: user.email, password: 'guess-guess' });
      for (let i = 0; i < 3; i += 1) expect((await attempt()).status).toBe(401);
      const limited = await attempt();
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).not.toBeNull();
      expect(limited.headers.get('content-type')).toMatch(/^text\/html/);
    });
  });

  describe('storage and logs', () => {
    const logger = new RecordingLogger();
    let t: TestService;
    beforeAll(async () => {
      t = await startOAuthService({ logger });
    });
    afterAll(async () => {
      await t.close();
    });

    it('stores codes and tokens only as SHA-256 hashes, and never logs a token, code, password or secret', async () => {
      const { client, user } = demoParties(t);
      const code = await demoCode(t, { codeChallenge: CHALLENGE });
      const first = await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: client.client_id, client_secret: client.client_secret });
      expect(first.status).toBe(200);
      const tokens = first.body as { access_token: string; refresh_token: string };
      const rotated = await postOAuth(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id, client_secret: client.client_secret });
      const second = rotated.body as { access_token: string; refresh_token: string };
      // Reuse (code and refresh token), a failed login and a wrong secret: the paths that log warnings.
      await postOAuth(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id, client_secret: client.client_secret });
      await postOAuth(t, '/oauth/token', { grant_type: 'authorization_code', code, client_id: client.client_id, client_secret: client.client_secret });
      await postLogin(t, { clientId: client.client_id, redirectUri: client.redirect_uri, email: user.email, password: 'wrong-password-123' });
      await postOAuth(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: client.client_id, client_secret: 'wrong-client-secret' });
      const extra = await demoTokens(t);

      const secrets = [code, tokens.access_token, tokens.refresh_token, second.access_token, second.refresh_token, extra.access_token, extra.refresh_token];
      const file = new Database(join(t.dataDir, DATABASE_FILE), { readonly: true });
      try {
        const dump = JSON.stringify([
          file.prepare('SELECT * FROM oauth_tokens').all(),
          file.prepare('SELECT * FROM oauth_codes').all(),
          file.prepare('SELECT * FROM oauth_clients').all(),
        ]);
        for (const secret of secrets) {
          expect(dump).not.toContain(secret);
          expect(dump).toContain(sha256Hex(secret));
        }
        expect(dump).not.toContain(client.client_secret);
        expect(dump).not.toContain(user.password);
      } finally {
        file.close();
      }

      const log = logger.text();
      expect(log).toMatch(/reused/);
      for (const secret of [...secrets, user.password, 'wrong-password-123', client.client_secret, 'wrong-client-secret']) {
        expect(log).not.toContain(secret);
      }
    });

    it('documents the OAuth bodies in the OpenAPI document', async () => {
      const document = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
      const token = JSON.stringify(document.paths['/oauth/token']);
      for (const field of ['grant_type', 'code_verifier', 'refresh_token', 'access_token', 'expires_in', 'error_description', 'application/x-www-form-urlencoded']) {
        expect(token).toContain(field);
      }
      expect(document.paths['/oauth/revoke']).toBeDefined();
      expect(JSON.stringify(document.paths['/oauth/authorize'])).toContain('code_challenge');
    });
  });
});
