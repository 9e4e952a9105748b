import { beforeAll, describe, expect, it } from '@jest/globals';
import { useDemo } from '../../support/demo-process.js';
import { openSse, type SseClient } from '../events/sse-client.js';

/** The demo's Nuki authorization linked to the owner (docs/design.md §4b "Demo"). */
const LINKED = "Olivia's iPhone";

describe('ekey-locks demo: Back Door, the simulated Nuki (docs/design.md §4b, §6), through the real CLI', () => {
  const session = useDemo('ekey-demo-nuki-');
  const { api } = session;
  let ownerId: string;
  let backDoor: string;
  let frontDoor: string;

  const backDoorEntry = async (): Promise<Record<string, unknown>> => {
    const locks = (await api('GET', `/users/${ownerId}/locks`)).body.locks as Record<string, unknown>[];
    const entry = locks.find((lock) => lock.id === backDoor);
    if (!entry) throw new Error('Back Door missing from the lock list');
    return entry;
  };

  const events = async (): Promise<Record<string, unknown>[]> => (await api('GET', `/locks/${backDoor}/events`)).body.lock_events as Record<string, unknown>[];
  /** The lock's event count: the demo starts with a week of history, so a page's length says nothing. */
  const eventCount = async (): Promise<number> => ((await api('GET', `/locks/${backDoor}/events?limit=1`)).body.metadata as { count: number }).count;

  const finished = (commandId: string): Promise<Record<string, unknown>> => session.finished(backDoor, commandId);
  const command = (type: 'lock' | 'unlock'): Promise<Record<string, unknown>> => session.command(backDoor, type);

  beforeAll(() => {
    ownerId = session.ownerId;
    backDoor = session.lockId('Back Door');
    frontDoor = session.lockId('Front Door');
  });

  it('lists Back Door in the demo line as a Nuki with a gateway connection, owned by the owner', () => {
    expect(session.demo.demo.locks.map((lock) => lock.name)).toEqual(['Front Door', 'Garden Gate', 'Back Door', 'Building Door', 'Side Door']);
    expect(session.demo.demo.locks.find((lock) => lock.id === backDoor)).toEqual({ id: backDoor, name: 'Back Door', owner_id: ownerId, gateway: true, family: 'nuki' });
    expect(session.demo.demo.locks.filter((lock) => lock.family === 'ekey').map((lock) => lock.name)).toEqual(['Front Door', 'Garden Gate']);
  });

  it('shows Back Door online with its bolt state in the owner\'s lock list as soon as the demo line is printed', async () => {
    expect(await backDoorEntry()).toMatchObject({ id: backDoor, name: 'Back Door', online_status: 'online', bolt_state: 'locked' });
  });

  it('says in the lock list which commands each lock runs: Back Door can unlatch, Front Door cannot', async () => {
    expect((await backDoorEntry()).supported_commands).toEqual(['lock', 'unlock', 'unlatch']);
    const locks = (await api('GET', `/users/${ownerId}/locks`)).body.locks as Record<string, unknown>[];
    expect(locks.find((lock) => lock.id === frontDoor)?.supported_commands).toEqual(['lock', 'unlock']);
  });

  it('runs API commands through real Nuki frames: completed, and an event with the owner as performer', async () => {
    expect(await command('unlock')).toMatchObject({ status: 'completed', requested_by: ownerId });
    expect((await backDoorEntry()).bolt_state).toBe('unlocked');
    expect(await command('lock')).toMatchObject({ status: 'completed' });
    expect((await backDoorEntry()).bolt_state).toBe('locked');
    const [newest, older] = await events();
    expect(newest).toMatchObject({ type: 'lock', performer: { id: ownerId } });
    expect(older).toMatchObject({ type: 'unlock', performer: { id: ownerId } });
  });

  it('unlatches Back Door (docs/design.md §4d): completed, an unlock event with "unlatched": true that type=unlock lists', async () => {
    const created = await api('POST', `/locks/${backDoor}/commands`, { type: 'unlatch' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'unlatch', status: 'processing' });
    expect(await finished(String(created.body.id))).toMatchObject({ type: 'unlatch', status: 'completed', requested_by: ownerId });
    expect((await backDoorEntry()).bolt_state).toBe('unlocked');
    const [newest] = await events();
    expect(newest).toMatchObject({ type: 'unlock', performer: { id: ownerId }, unlatched: true });
    const unlocks = (await api('GET', `/locks/${backDoor}/events?type=unlock`)).body.lock_events as Record<string, unknown>[];
    expect(unlocks[0]).toEqual(newest);
    expect(await command('lock')).toMatchObject({ status: 'completed' });
    expect((await events())[0]).not.toHaveProperty('unlatched');
  });

  it('refuses unlatch on our own profile and the Opener\'s commands on a Smart Lock: 400 unsupported_command, nothing queued', async () => {
    const before = await events();
    const unlatch = await api('POST', `/locks/${frontDoor}/commands`, { type: 'unlatch' });
    expect(unlatch.status).toBe(400);
    expect(unlatch.body).toMatchObject({ code: 'unsupported_command' });
    for (const type of ['ring_to_open_on', 'ring_to_open_off', 'continuous_mode_on', 'continuous_mode_off']) {
      const answer = await api('POST', `/locks/${backDoor}/commands`, { type });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'unsupported_command' });
    }
    expect(await events()).toEqual(before);
  });

  it('tap by the linked "Olivia\'s iPhone": the bolt moves and an owner event is in the history and on the stream', async () => {
    const before = await eventCount();
    let stream: SseClient | undefined;
    try {
      stream = await openSse(`${session.demo.demo.base_url}/locks/${backDoor}/events/stream`, { authorization: `Bearer ${session.token}` });
      expect(stream.status).toBe(200);
      expect(await session.demo.control({ op: 'tap', lock_id: backDoor, authorization: LINKED, action: 'unlock' })).toEqual({ ok: true, id: expect.any(String) });
      expect((await backDoorEntry()).bolt_state).toBe('unlocked');
      const history = await events();
      expect(await eventCount()).toBe(before + 1);
      expect(history[0]).toMatchObject({ type: 'unlock', performer: { id: ownerId } });
      const streamed = stream;
      const timeout = setTimeout(() => {
        streamed.close();
      }, 5_000);
      await stream.until((client) => client.messages().some((message) => message.id === history[0]?.id));
      clearTimeout(timeout);
      const message = stream.messages().find((candidate) => candidate.id === history[0]?.id);
      expect(JSON.parse(message?.data ?? '{}')).toMatchObject({ id: history[0]?.id, type: 'unlock', performer: { id: ownerId } });
    } finally {
      stream?.close();
    }
  });

  it('tap by any other name is an unlinked authorization: the bolt moves, no event', async () => {
    const before = await events();
    expect(await session.demo.control({ op: 'tap', lock_id: backDoor, authorization: "Guest's Android", action: 'lock' })).toMatchObject({ ok: true });
    expect((await backDoorEntry()).bolt_state).toBe('locked');
    // The same unlinked phone again: still no event.
    expect(await session.demo.control({ op: 'tap', lock_id: backDoor, authorization: "Guest's Android", action: 'unlock' })).toMatchObject({ ok: true });
    expect((await backDoorEntry()).bolt_state).toBe('unlocked');
    expect(await events()).toEqual(before);
    expect(await session.demo.control({ op: 'tap', lock_id: backDoor, authorization: LINKED, action: 'lock' })).toMatchObject({ ok: true });
    expect((await events())[0]).toMatchObject({ type: 'lock', performer: { id: ownerId } });
  });

  it('refuses a tap by an eKey on the Nuki, by an authorization on Front Door, and by the gateway\'s own authorization', async () => {
    const ekeyId = String((await backDoorEntry()).ekey_id);
    const byKey = await session.demo.control({ op: 'tap', lock_id: backDoor, ekey_id: ekeyId, action: 'unlock' });
    expect(byKey).toMatchObject({ ok: false });
    expect(byKey.error).toMatch(/Nuki.*"authorization"/);
    const byName = await session.demo.control({ op: 'tap', lock_id: frontDoor, authorization: LINKED, action: 'unlock' });
    expect(byName).toMatchObject({ ok: false });
    expect(byName.error).toMatch(/not a Nuki.*"ekey_id"/);
    const both = await session.demo.control({ op: 'tap', lock_id: backDoor, ekey_id: ekeyId, authorization: LINKED, action: 'unlock' });
    expect(both).toMatchObject({ ok: false });
    const gateway = await session.demo.control({ op: 'tap', lock_id: backDoor, authorization: 'ekey-locks', action: 'unlock' });
    expect(gateway).toMatchObject({ ok: false });
    expect(gateway.error).toMatch(/gateway/);
    expect((await backDoorEntry()).bolt_state).toBe('locked');
  });

  it('manual: the bolt state changes, no event', async () => {
    const before = await events();
    expect(await session.demo.control({ op: 'manual', lock_id: backDoor, bolt: 'unlocked' })).toEqual({ ok: true, id: expect.any(String) });
    expect((await backDoorEntry()).bolt_state).toBe('unlocked');
    expect(await session.demo.control({ op: 'manual', lock_id: backDoor, bolt: 'locked' })).toEqual({ ok: true, id: expect.any(String) });
    expect((await backDoorEntry()).bolt_state).toBe('locked');
    expect(await events()).toEqual(before);
  });

  it('battery 0.42: the lock list shows 0.42 and a battery event is recorded', async () => {
    expect(await session.demo.control({ op: 'battery', lock_id: backDoor, level: 0.42 })).toEqual({ ok: true, id: expect.any(String) });
    expect((await backDoorEntry()).battery_level).toBe(0.42);
    expect((await events())[0]).toMatchObject({ type: 'battery', value: 0.42 });
  });

  it('jam: the next command fails jammed, the bolt shows jammed until a manual turn', async () => {
    expect(await session.demo.control({ op: 'jam', lock_id: backDoor })).toEqual({ ok: true, id: expect.any(String) });
    expect(await command('unlock')).toMatchObject({ status: 'failed', failure_reason: 'jammed' });
    expect((await backDoorEntry()).bolt_state).toBe('jammed');
    const tap = await session.demo.control({ op: 'tap', lock_id: backDoor, authorization: LINKED, action: 'unlock' });
    expect(tap).toMatchObject({ ok: false });
    expect(tap.error).toMatch(/jammed/);
    expect(await session.demo.control({ op: 'manual', lock_id: backDoor, bolt: 'unlocked' })).toEqual({ ok: true, id: expect.any(String) });
    expect((await backDoorEntry()).bolt_state).toBe('unlocked');
    expect(await command('lock')).toMatchObject({ status: 'completed' });
  });

  it('offline within 5 s, commands refused with 400; online again, commands work', async () => {
    // Exactly { ok, id }: the demo answers so only once the service shows the lock offline, and
    // adds observed:false when its own 5 s window (docs/design.md §6) runs out first — no test-side clock.
    expect(await session.demo.control({ op: 'offline', lock_id: backDoor })).toEqual({ ok: true, id: expect.any(String) });
    expect((await backDoorEntry()).online_status).toBe('offline');
    const refused = await api('POST', `/locks/${backDoor}/commands`, { type: 'unlock' });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('lock_unreachable');

    expect(await session.demo.control({ op: 'online', lock_id: backDoor })).toEqual({ ok: true, id: expect.any(String) });
    expect((await backDoorEntry()).online_status).toBe('online');
    expect(await command('unlock')).toMatchObject({ status: 'completed' });
  });

  it('a tap while out of range is read back from the lock\'s log once it is in range again', async () => {
    expect(await session.demo.control({ op: 'offline', lock_id: backDoor })).toEqual({ ok: true, id: expect.any(String) });
    expect(await session.demo.control({ op: 'tap', lock_id: backDoor, authorization: LINKED, action: 'lock' })).toEqual({ ok: true, id: expect.any(String) });
    expect(await session.demo.control({ op: 'online', lock_id: backDoor })).toEqual({ ok: true, id: expect.any(String) });
    expect(await backDoorEntry()).toMatchObject({ online_status: 'online', bolt_state: 'locked' });
    expect((await events())[0]).toMatchObject({ type: 'lock', performer: { id: ownerId } });
  });

  it('Front Door still works as before alongside the Nuki', async () => {
    const created = await api('POST', `/locks/${frontDoor}/commands`, { type: 'unlock' });
    expect(created.status).toBe(201);
  });
});
