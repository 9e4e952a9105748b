/**
 * Building Door, the demo's simulated Nuki Opener (docs/design.md §4d, §6), through the real CLI:
 * the `ring` control line, ring events in the history (owners only), Ring to Open and Continuous
 * Mode as commands, the strike on `unlock`.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { useDemo } from '../../support/demo-process.js';

type Body = Record<string, unknown>;

describe('ekey-locks demo: Building Door, the simulated Nuki Opener', () => {
  const session = useDemo('ekey-demo-opener-');
  const { api } = session;
  let ownerId: string;
  let buildingDoor: string;
  let backDoor: string;

  const entry = async (): Promise<Body> => {
    const locks = (await api('GET', `/users/${ownerId}/locks`)).body.locks as Body[];
    const found = locks.find((lock) => lock.id === buildingDoor);
    if (!found) throw new Error('Building Door missing from the lock list');
    return found;
  };
  const events = async (query = ''): Promise<Body[]> => (await api('GET', `/locks/${buildingDoor}/events${query}`)).body.lock_events as Body[];
  const command = (type: string): Promise<Body> => session.command(buildingDoor, type);

  beforeAll(() => {
    ownerId = session.ownerId;
    buildingDoor = session.lockId('Building Door');
    backDoor = session.lockId('Back Door');
  });

  it('lists five locks in the demo line, Building Door fourth: a nuki-opener with a gateway connection, owned by the owner', () => {
    expect(session.demo.demo.locks.map((lock) => lock.name)).toEqual(['Front Door', 'Garden Gate', 'Back Door', 'Building Door', 'Side Door']);
    expect(session.demo.demo.locks.find((lock) => lock.id === buildingDoor)).toEqual({ id: buildingDoor, name: 'Building Door', owner_id: ownerId, gateway: true, family: 'nuki-opener' });
  });

  it('starts locked and online', async () => {
    expect(await entry()).toMatchObject({ online_status: 'online', bolt_state: 'locked' });
  });

  it('"ring" without a mode: answered once the service has it, a ring event without performer or "opened", the door stays locked', async () => {
    expect(await session.demo.control({ op: 'ring', lock_id: buildingDoor })).toEqual({ ok: true, id: expect.any(String) });
    const [newest] = await events();
    expect(newest).toMatchObject({ type: 'ring' });
    expect(newest).not.toHaveProperty('performer');
    expect(newest).not.toHaveProperty('opened');
    expect((await events('?type=ring'))[0]).toEqual(newest);
    expect((await entry()).bolt_state).toBe('locked');
  });

  it('Ring to Open: on, the next ring opens once ("opened": true) and ends it; the following ring does not open', async () => {
    expect(await command('ring_to_open_on')).toMatchObject({ status: 'completed', requested_by: ownerId });
    expect((await entry()).bolt_state).toBe('unlocked');
    expect((await events())[0]).toMatchObject({ type: 'unlock', performer: { id: ownerId }, mode: 'ring_to_open' });
    expect(await session.demo.control({ op: 'ring', lock_id: buildingDoor })).toMatchObject({ ok: true });
    expect((await events('?type=ring'))[0]).toMatchObject({ type: 'ring', opened: true });
    expect((await entry()).bolt_state).toBe('locked');
    expect(await session.demo.control({ op: 'ring', lock_id: buildingDoor })).toMatchObject({ ok: true });
    expect((await events('?type=ring'))[0]).not.toHaveProperty('opened');
  });

  it('Continuous Mode: every ring opens and the mode stays until switched off', async () => {
    expect(await command('continuous_mode_on')).toMatchObject({ status: 'completed' });
    for (let ring = 0; ring < 2; ring += 1) {
      expect(await session.demo.control({ op: 'ring', lock_id: buildingDoor })).toMatchObject({ ok: true });
      expect((await events('?type=ring'))[0]).toMatchObject({ opened: true });
      expect((await entry()).bolt_state).toBe('unlocked');
    }
    expect(await command('continuous_mode_off')).toMatchObject({ status: 'completed' });
    expect((await events())[0]).toMatchObject({ type: 'lock', mode: 'continuous_mode' });
    expect((await entry()).bolt_state).toBe('locked');
  });

  it('unlock opens the strike once: completed, an unlock event by the owner, locked again after', async () => {
    expect(await command('unlock')).toMatchObject({ status: 'completed', requested_by: ownerId });
    const [newest] = await events();
    expect(newest).toMatchObject({ type: 'unlock', performer: { id: ownerId } });
    expect(newest).not.toHaveProperty('mode');
    expect((await entry()).bolt_state).toBe('locked');
  });

  it('refuses unlatch on the Opener (400 unsupported_command)', async () => {
    const answer = await api('POST', `/locks/${buildingDoor}/commands`, { type: 'unlatch' });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'unsupported_command' });
  });

  it('refuses the lines an Opener cannot act on, and a ring at a lock without an intercom', async () => {
    for (const line of [
      { op: 'manual', lock_id: buildingDoor, bolt: 'unlocked' },
      { op: 'jam', lock_id: buildingDoor },
      { op: 'tap', lock_id: buildingDoor, authorization: "Olivia's iPhone", action: 'unlock' },
      { op: 'keypad', lock_id: buildingDoor, code: '482913', action: 'unlock' },
      { op: 'ring', lock_id: backDoor },
    ]) {
      const answer = await session.demo.control(line);
      expect(answer).toMatchObject({ ok: false });
      expect(typeof answer.error).toBe('string');
    }
  });

  it('shows rings to owners only: a holder of an eKey on Building Door does not see them', async () => {
    const guest = session.demo.demo.users[1];
    if (!guest) throw new Error('no second user');
    const sent = await api('POST', '/ekey', { email: guest.email, lock_id: buildingDoor, type: 'anytime' });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ status: 'accepted' });
    const guestToken = (await session.demo.login(1)).access_token;
    const seen = (await api('GET', `/locks/${buildingDoor}/events?limit=100`, undefined, guestToken)).body.lock_events as Body[] | undefined;
    expect(seen?.some((event) => event.type === 'ring')).toBe(false);
    expect((await events('?limit=100')).some((event) => event.type === 'ring')).toBe(true);
  });

  it('battery: at or below 0.2 the Opener reports critical (5 %), above it reports fine', async () => {
    expect(await session.demo.control({ op: 'battery', lock_id: buildingDoor, level: 0.1 })).toEqual({ ok: true, id: expect.any(String) });
    expect((await entry()).battery_level).toBe(0.05);
    expect(await session.demo.control({ op: 'battery', lock_id: buildingDoor, level: 0.9 })).toEqual({ ok: true, id: expect.any(String) });
    expect((await entry()).battery_level).toBe(1);
  });

  it('offline within 5 s and online again', async () => {
    expect(await session.demo.control({ op: 'offline', lock_id: buildingDoor })).toEqual({ ok: true, id: expect.any(String) });
    expect((await entry()).online_status).toBe('offline');
    expect(await session.demo.control({ op: 'online', lock_id: buildingDoor })).toEqual({ ok: true, id: expect.any(String) });
    expect((await entry()).online_status).toBe('online');
  });
});
