import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceRoot } from '../../../src/service-root.js';
import { silentLogger } from '../../../src/logger.js';
import { call, signInDemoUser } from '../../support/demo-process.js';

/*
 * The API compiles a route's validators and serializers at its first request
 * (src/api/lazy-schema-compilers.ts), never all at start. Every one of them must compile: here,
 * not at a user's first request.
 */
describe('route schemas', () => {
  it('every route schema of the API compiles', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ekey-route-schemas-'));
    const service = await ServiceRoot.open({ config: {}, dataDir, logger: silentLogger, demo: true, demoHistory: false });
    try {
      expect(await service.compileRouteSchemas()).toEqual([]);
      // Compiled already: nothing is left, and the service still answers as before.
      expect(await service.compileRouteSchemas()).toEqual([]);
      const url = await service.listen(0, '127.0.0.1');
      const household = service.demo?.household;
      if (!household) throw new Error('no demo');
      const tokens = await signInDemoUser(url, household);
      const me = await call(url, 'GET', '/me', { token: tokens.access_token });
      expect(me.status).toBe(200);
      expect(me.json).toEqual({ id: household.users[0]?.id, name: household.users[0]?.name });
      const bad = await call(url, 'POST', '/ekey', { token: tokens.access_token, body: { email: 'x' } });
      expect(bad.status).toBe(400);
    } finally {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
