/** The eKey, lock-list and invitation routes appear in the generated OpenAPI document, with the spec's objects. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestService, type TestService } from '../../support/test-service.js';

/** Setup signs several users in (scrypt) and may share the machine with other suites. */
const SETUP_TIMEOUT_MS = 120_000;

/** The spec's eKey object (its "eKey" table), its type and status values. */
const SPEC_EKEY_FIELDS = ['id', 'name', 'type', 'status', 'valid_from', 'valid_to', 'schedule_start', 'schedule_end', 'message', 'user_id', 'lock_id'];
const SPEC_EKEY_TYPES = ['owner', 'admin', 'anytime', 'scheduled', 'guest'];
const SPEC_EKEY_STATUSES = ['pending', 'accepted', 'revoked'];
/** The spec's Lock object of a user's lock list, and the values it shows. */
const SPEC_LOCK_FIELDS = ['id', 'name', 'bolt_state', 'online_status'];
const SPEC_BOLT_STATES_SEEN = ['locked', 'unlocked'];
const SPEC_ONLINE_STATUSES_SEEN = ['online', 'offline'];
/** The spec's POST /ekey request body and its required fields. */
const SPEC_SEND_FIELDS = ['email', 'lock_id', 'type', 'valid_from', 'valid_to', 'schedule_start', 'schedule_end', 'message'];
const SPEC_SEND_REQUIRED = ['email', 'lock_id', 'type'];

interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
}
interface Operation {
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

let test: TestService;
let document: Document;
beforeAll(async () => {
  test = await startTestService();
  document = (await test.service.openApiDocument()) as Document;
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await test.close();
});

/** Follows a `#/components/schemas/…` reference. */
function resolved(schema: Schema | undefined): Schema {
  if (schema === undefined) throw new Error('no schema');
  if (schema.$ref === undefined) return schema;
  const target = document.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
  if (target === undefined) throw new Error(`unresolved ${schema.$ref}`);
  return target;
}

/** Every value a schema allows when it is an enumeration (an `enum` or an `anyOf` of them). */
function values(schema: Schema | undefined): unknown[] {
  const actual = resolved(schema);
  return [...(actual.enum ?? []), ...(actual.anyOf ?? []).flatMap((part) => (part.type === 'null' ? [] : values(part)))];
}

const jsonAnswer = (path: string, method: string, status: string): Schema => resolved(document.paths[path]?.[method]?.responses[status]?.content?.['application/json']?.schema);

describe('OpenAPI document', () => {
  it('documents every eKey path and alias', () => {
    for (const path of ['/ekey', '/ekeys', '/ekey/{ekey_id}', '/ekeys/{ekey_id}', '/locks/{lock_id}/ekeys', '/users/{user_id}/locks', '/user/{user_id}/locks', '/invitations/{token}']) {
      expect(Object.keys(document.paths)).toContain(path);
    }
    expect(Object.keys(document.paths['/ekey/{ekey_id}'] ?? {})).toEqual(expect.arrayContaining(['get', 'put', 'delete']));
  });

  it('answers the spec’s eKey object, every field always present, with the spec’s types and statuses', () => {
    for (const [path, method, status] of [
      ['/ekey/{ekey_id}', 'get', '200'],
      ['/ekey/{ekey_id}', 'put', '200'],
      ['/ekey/{ekey_id}', 'delete', '200'],
      ['/ekey', 'post', '201'],
    ] as const) {
      const ekey = jsonAnswer(path, method, status);
      expect(Object.keys(ekey.properties ?? {})).toEqual(expect.arrayContaining(SPEC_EKEY_FIELDS));
      expect(ekey.required).toEqual(expect.arrayContaining(SPEC_EKEY_FIELDS));
      expect(values(ekey.properties?.type).sort()).toEqual([...SPEC_EKEY_TYPES].sort());
      expect(values(ekey.properties?.status).sort()).toEqual([...SPEC_EKEY_STATUSES].sort());
    }
    expect(resolved(jsonAnswer('/locks/{lock_id}/ekeys', 'get', '200').properties?.ekeys?.items)).toEqual(jsonAnswer('/ekey/{ekey_id}', 'get', '200'));
  });

  it('answers the spec’s Lock object in a user’s lock list, with the values the spec shows', () => {
    const lock = resolved(jsonAnswer('/users/{user_id}/locks', 'get', '200').properties?.locks?.items);
    expect(lock.required).toEqual(expect.arrayContaining(SPEC_LOCK_FIELDS));
    expect(values(lock.properties?.bolt_state)).toEqual(expect.arrayContaining(SPEC_BOLT_STATES_SEEN));
    expect(values(lock.properties?.online_status).sort()).toEqual([...SPEC_ONLINE_STATUSES_SEEN].sort());
  });

  it('takes the spec’s POST /ekey body, requiring exactly what the spec requires', () => {
    const body = resolved(document.paths['/ekey']?.post?.requestBody?.content['application/json']?.schema);
    expect(Object.keys(body.properties ?? {})).toEqual(expect.arrayContaining(SPEC_SEND_FIELDS));
    expect([...(body.required ?? [])].sort()).toEqual([...SPEC_SEND_REQUIRED].sort());
  });
});
