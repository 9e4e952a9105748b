/** The eKey, lock-list and invitation routes appear in the generated OpenAPI document. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestService, type TestService } from '../../support/test-service.js';

/** Setup signs several users in (scrypt) and may share the machine with other suites. */
const SETUP_TIMEOUT_MS = 120_000;

let test: TestService;
beforeAll(async () => {
  test = await startTestService();
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await test.close();
});

describe('OpenAPI document', () => {
  it('documents every eKey path and alias with the eKey and lock schemas', async () => {
    const document = (await test.service.openApiDocument()) as { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
    for (const path of ['/ekey', '/ekeys', '/ekey/{ekey_id}', '/ekeys/{ekey_id}', '/locks/{lock_id}/ekeys', '/users/{user_id}/locks', '/user/{user_id}/locks', '/invitations/{token}']) {
      expect(Object.keys(document.paths)).toContain(path);
    }
    expect(Object.keys(document.paths['/ekey/{ekey_id}'] ?? {})).toEqual(expect.arrayContaining(['get', 'put', 'delete']));
    const schemas = JSON.stringify(document.components.schemas);
    for (const field of ['schedule_start', 'user_id', 'bolt_state', 'online_status', 'your_role']) expect(schemas).toContain(field);
  });
});
