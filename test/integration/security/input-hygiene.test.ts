/**
 * Issue #32, finding 11 (info), over real HTTP on loopback: names that disguise themselves
 * (bidirectional overrides, zero-width characters, lone surrogates) are refused with 400 naming
 * the field, or — a lock's name from the operator's config — cleaned; `T24:00:00` and an offset
 * such as `+99:99` are refused; the password pages' policy lets their own stylesheet and script
 * load, and every relative link of theirs resolves to a file the service serves.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loginOverHttp } from '../../support/oauth-login.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { call } from '../ekeys/household.js';
import { demoParts } from './demo-parts.js';

const OWNER = 'olivia@example.com';
const RLO = '\u202e';
const ZWSP = '\u200b';

describe('input that disguises itself (finding 11)', () => {
  let test: TestService;
  let parts: ReturnType<typeof demoParts>;
  let token: string;

  beforeAll(async () => {
    test = await startTestService({
      config: {
        locks: [{ name: `Shed${RLO}txt.exe`, address: 'D0:E1:00:00:32:11', key: 'ab'.repeat(32), owner_email: OWNER, family: 'ekey' }],
      },
    });
    parts = demoParts(test.demo);
    token = (await loginOverHttp({ baseUrl: test.baseUrl, client: parts.client, email: parts.owner.email, password: parts.owner.password })).access_token;
  });

  afterAll(async () => {
    await test.close();
  });

  const send = (body: Record<string, unknown> | string) =>
    call(test.baseUrl, token, 'POST', '/ekey', typeof body === 'string' ? body : { email: parts.others[0]?.email, lock_id: parts.frontDoor, type: 'anytime', ...body });

  it('refuses eKey names and messages with direction overrides, zero-width characters or lone surrogates (400, the field named)', async () => {
    for (const [field, value] of [
      ['name', `Cleaner ${RLO}gnp.exe`],
      ['name', `ad${ZWSP}min`],
      ['message', `Welcome${RLO} home`],
    ] as const) {
      const answer = await send({ [field]: value });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'validation_failed', errors: [{ field: `/${field}`, message: expect.stringContaining('invisible or direction-changing') }] });
    }
    // A lone surrogate: JSON.stringify writes it as the escape `\ud800` (the only way it reaches the service).
    const lone = await send({ name: 'Key \ud800' });
    expect(lone.status).toBe(400);
    expect(lone.body).toMatchObject({ errors: [{ field: '/name', message: expect.stringContaining('lone surrogate') }] });
    // Nothing was written; an emoji sequence with its joiner is still a name.
    const fine = await send({ name: 'Office 👩‍💻' });
    expect(fine.status).toBe(201);
    expect(fine.body.name).toBe('Office 👩‍💻');
  });

  it('cleans a lock name from the config of what disguises it', async () => {
    const locks = (await call(test.baseUrl, token, 'GET', `/users/${parts.owner.id}/locks`)).body.locks ?? [];
    const names = locks.map((lock) => lock.name);
    expect(names).toContain('Shedtxt.exe');
    expect(names.some((name) => name.includes(RLO))).toBe(false);
  });

  it('refuses T24:00:00 and offsets outside -12:00 to +14:00 (400, the field named)', async () => {
    for (const [field, value] of [
      ['valid_from', '2026-03-08T24:00:00Z'],
      ['valid_to', '2026-03-08T10:00:00+99:99'],
      ['valid_to', '2026-03-08T10:00:00+14:30'],
      ['valid_from', '2026-03-08T10:00:00-13:00'],
    ] as const) {
      const answer = await send({ email: parts.others[1]?.email, [field]: value });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'validation_failed', errors: [{ field: `/${field}` }] });
    }
    const year = new Date(test.clock.now()).getUTCFullYear() + 1;
    const edge = await send({ email: parts.others[1]?.email, valid_from: `${year}-03-08T10:00:00+14:00`, valid_to: `${year}-03-09T10:00:00-12:00` });
    expect(edge.status).toBe(201);
  });

  it('serves the password pages with a policy that loads their own stylesheet and script, every relative link resolving', async () => {
    for (const path of ['/password/forgot', `/password/reset/${'A'.repeat(43)}`]) {
      const page = await fetch(`${test.baseUrl}${path}`, { headers: { accept: 'text/html' } });
      const policy = page.headers.get('content-security-policy') ?? '';
      expect(policy).toMatch(/style-src 'self'/);
      expect(policy).toMatch(/script-src 'self'/);
      const html = await page.text();
      const links = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1] ?? '');
      expect(links.length).toBeGreaterThan(4);
      for (const link of links) {
        const target = new URL(link, `${test.baseUrl}${path}`);
        // Every asset is the web app's; every page link one of the service's pages.
        expect(target.pathname).toMatch(/^\/(app\/|password\/forgot$)/);
        const answer = await fetch(target, { headers: { accept: '*/*' } });
        expect([target.pathname, answer.status]).toEqual([target.pathname, 200]);
      }
    }
  });
});
