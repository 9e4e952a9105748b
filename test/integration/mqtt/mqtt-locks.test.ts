/**
 * The MQTT view of the locks (docs/design.md §11) against a real Mosquitto with a password file:
 * retained state, availability and attributes per lock under the base topic, the service's status
 * with a last will, one `event` message per lock event (who and how), LOCK/UNLOCK/OPEN as the
 * acting user with a `command_result`, bad payloads ignored with one line, Home Assistant's device
 * messages (republished on its birth message, a removed lock's emptied), and a broker that goes away
 * and comes back.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startCommandFixture, untilOnline, type CommandFixture } from '../commands/command-fixture.js';
import { startMosquitto, watchBroker, type MosquittoBroker, type ReceivedMessage, type WatchingClient } from '../../support/mosquitto-broker.js';
import { until } from '../../support/polling.js';

const BASE = 'site-a';
type Json = Record<string, unknown>;
const json = (message: ReceivedMessage | undefined): Json => JSON.parse(message?.payload ?? 'null') as Json;

describe('MQTT: the locks on a real broker', () => {
  let broker: MosquittoBroker;
  let fixture: CommandFixture;
  let home: WatchingClient;
  let ownerName: string;

  const topic = (lockId: string, leaf: string): string => `${BASE}/${lockId}/${leaf}`;
  const publish = async (name: string, payload: string, retain = false): Promise<void> => {
    await home.client.publishAsync(name, payload, { qos: 1, retain });
  };
  const after = (count: number) => (accept: (message: ReceivedMessage) => boolean) => (message: ReceivedMessage) =>
    home.messages.indexOf(message) >= count && accept(message);

  beforeAll(async () => {
    broker = await startMosquitto();
    fixture = await startCommandFixture({
      config: { mqtt: { url: broker.url, username: broker.username, password: broker.password, base_topic: BASE, acting_user: 'olivia@example.com' } },
    });
    ownerName = fixture.test.demo.users[0]?.name ?? '';
    await untilOnline(fixture, fixture.frontDoor);
    home = await watchBroker(broker, [`${BASE}/#`, 'homeassistant/#']);
  });

  afterAll(async () => {
    await home.close();
    await fixture.test.close();
    await broker.close();
  });

  it('says the service is online (retained), and every lock\'s state, availability and attributes (retained)', async () => {
    expect(await home.next((m) => m.topic === `${BASE}/status`, 'the status')).toEqual({ topic: `${BASE}/status`, payload: 'online', retain: true });
    const state = await home.next((m) => m.topic === topic(fixture.frontDoor, 'state'), 'Front Door state');
    expect(state).toEqual({ topic: topic(fixture.frontDoor, 'state'), payload: 'LOCKED', retain: true });
    expect(await home.next((m) => m.topic === topic(fixture.frontDoor, 'availability') && m.payload === 'online', 'Front Door online')).toMatchObject({ retain: true });
    expect(await home.next((m) => m.topic === topic(fixture.gardenGate, 'availability'), 'Garden Gate availability')).toMatchObject({ payload: 'offline', retain: true });
    const attributes = await home.next((m) => m.topic === topic(fixture.frontDoor, 'attributes'), 'Front Door attributes');
    expect(attributes.retain).toBe(true);
    expect(Object.keys(json(attributes)).sort()).toEqual(['battery', 'battery_low', 'last_event']);
    expect(json(attributes)).toMatchObject({ battery_low: false });
    expect(typeof json(attributes).battery).toBe('number');
  });

  it('announces every lock to Home Assistant, one retained device message each, with the Opener\'s ring and switches and Back Door\'s OPEN', async () => {
    const config = (lockId: string): Promise<ReceivedMessage> =>
      home.next((m) => m.topic === `homeassistant/device/${BASE}_${lockId}/config` && m.payload !== '', `the device message of ${lockId}`);
    const front = json(await config(fixture.frontDoor));
    const back = json(await config(fixture.backDoor));
    const building = json(await config(fixture.buildingDoor));
    expect((front.dev as Json).name).toBe('Front Door');
    expect((front.cmps as Json).lock).not.toHaveProperty('payload_open');
    expect((back.cmps as Json).lock).toMatchObject({ payload_open: 'OPEN', command_topic: topic(fixture.backDoor, 'set'), state_topic: topic(fixture.backDoor, 'state') });
    expect(Object.keys(building.cmps as Json).sort()).toEqual(['activity', 'battery', 'continuous_mode', 'lock', 'ring', 'ring_to_open']);
    expect(home.last(`${BASE}/${fixture.buildingDoor}/ring_to_open`)).toMatchObject({ payload: 'OFF', retain: true });
  });

  it('runs LOCK and UNLOCK from the set topic as the acting user: UNLOCKING, then UNLOCKED, a command_result and an event by that user', async () => {
    const start = home.messages.length;
    const since = after(start);
    await publish(topic(fixture.frontDoor, 'set'), 'UNLOCK');
    const result = json(await home.next(since((m) => m.topic === topic(fixture.frontDoor, 'command_result')), 'the command result'));
    expect(result).toEqual({ command_id: expect.any(String), type: 'unlock', status: 'completed', failure_reason: null });
    const states = home.messages.slice(start).filter((m) => m.topic === topic(fixture.frontDoor, 'state')).map((m) => m.payload);
    expect(states[0]).toBe('UNLOCKING');
    expect(states.at(-1)).toBe('UNLOCKED');
    const event = await home.next(since((m) => m.topic === topic(fixture.frontDoor, 'event')), 'the unlock event');
    expect(event.retain).toBe(false);
    expect(json(event)).toEqual({ event_type: 'unlocked', user: ownerName, via: 'app', at: expect.stringMatching(/Z$/) });
    // Recorded with the acting user as performer, as every remote command is.
    const history = await fixture.call(fixture.owner.token, 'GET', `/locks/${fixture.frontDoor}/events?limit=1`);
    expect((history.body.lock_events as Json[])[0]).toMatchObject({ type: 'unlock', performer: { id: fixture.owner.id } });
    const command = await fixture.call(fixture.owner.token, 'GET', `/locks/${fixture.frontDoor}/commands/${String(result.command_id)}`);
    expect(command.body).toMatchObject({ status: 'completed', requested_by: fixture.owner.id });
    await until(() => json(home.last(topic(fixture.frontDoor, 'attributes'))).last_event !== null, 'the attributes\' last event');
    expect(json(home.last(topic(fixture.frontDoor, 'attributes'))).last_event).toEqual(json(event));

    await publish(topic(fixture.frontDoor, 'set'), 'lock');
    expect(json(await home.next(after(home.messages.length)((m) => m.topic === topic(fixture.frontDoor, 'command_result')), 'the lock result'))).toMatchObject({
      type: 'lock',
      status: 'completed',
    });
    expect(home.last(topic(fixture.frontDoor, 'state'))?.payload).toBe('LOCKED');
  });

  it('tells a tap as one event with who tapped, via the app', async () => {
    const sent = await fixture.call(fixture.owner.token, 'POST', '/ekey', { lock_id: fixture.frontDoor, email: 'alex@example.com', type: 'anytime' });
    expect(sent.status).toBe(201);
    const keyId = String(sent.body.id);
    const since = after(home.messages.length);
    expect(await fixture.control({ op: 'tap', lock_id: fixture.frontDoor, ekey_id: keyId, action: 'unlock' })).toEqual({ ok: true });
    const event = await home.next(since((m) => m.topic === topic(fixture.frontDoor, 'event')), 'the tap event');
    expect(json(event)).toMatchObject({ event_type: 'unlocked', user: 'Alex Adams', via: 'app' });
    await until(() => home.messages.filter(since((m) => m.topic === topic(fixture.frontDoor, 'state'))).at(-1)?.payload === 'UNLOCKED', 'UNLOCKED after the tap');
    expect(home.messages.filter(since((m) => m.topic === topic(fixture.frontDoor, 'event')))).toHaveLength(1);
  });

  it('opens Back Door with OPEN: OPENING, then OPEN, recorded as an unlatching unlock', async () => {
    const since = after(home.messages.length);
    await publish(topic(fixture.backDoor, 'set'), 'OPEN');
    expect(json(await home.next(since((m) => m.topic === topic(fixture.backDoor, 'command_result')), 'the open result'))).toMatchObject({ type: 'unlatch', status: 'completed' });
    const states = home.messages.filter(since((m) => m.topic === topic(fixture.backDoor, 'state'))).map((m) => m.payload);
    expect(states[0]).toBe('OPENING');
    expect(states.at(-1)).toBe('OPEN');
    const history = await fixture.call(fixture.owner.token, 'GET', `/locks/${fixture.backDoor}/events?limit=1`);
    expect((history.body.lock_events as Json[])[0]).toMatchObject({ type: 'unlock', unlatched: true });
  });

  it('ignores a bad payload and OPEN on a lock that cannot unlatch, each with one log line and no command', async () => {
    const commandsBefore = fixture.test.service.db.prepare('SELECT COUNT(*) AS n FROM commands').get() as { n: number };
    const warnings = (): string[] => fixture.test.logger.lines.filter((line) => line.level === 'warn' && line.message.startsWith('MQTT: ignored')).map((line) => line.message);
    const before = warnings().length;
    await publish(topic(fixture.frontDoor, 'set'), 'WIGGLE');
    await publish(topic(fixture.frontDoor, 'set'), 'OPEN');
    await until(() => warnings().length >= before + 2, 'two warnings');
    // A good command after them: once its result is out, the bad ones had their chance to run.
    await publish(topic(fixture.frontDoor, 'set'), 'LOCK');
    await home.next(after(home.messages.length)((m) => m.topic === topic(fixture.frontDoor, 'command_result')), 'the LOCK result');
    const lines = warnings().slice(before);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('"WIGGLE" is not LOCK, UNLOCK or OPEN');
    expect(lines[1]).toContain('Front Door cannot open');
    const commandsAfter = fixture.test.service.db.prepare('SELECT COUNT(*) AS n FROM commands').get() as { n: number };
    expect(commandsAfter.n).toBe(commandsBefore.n + 1);
    expect(home.last(topic(fixture.frontDoor, 'state'))?.payload).toBe('LOCKED');
  });

  it('shows a jam as JAMMED with a jammed event, and the failed command\'s result', async () => {
    expect(await fixture.control({ op: 'jam', lock_id: fixture.frontDoor })).toMatchObject({ ok: true });
    const since = after(home.messages.length);
    expect(home.last(topic(fixture.frontDoor, 'state'))?.payload).toBe('LOCKED');
    await publish(topic(fixture.frontDoor, 'set'), 'UNLOCK');
    expect(json(await home.next(since((m) => m.topic === topic(fixture.frontDoor, 'command_result')), 'the jammed result'))).toMatchObject({
      type: 'unlock',
      status: 'failed',
      failure_reason: 'jammed',
    });
    expect(json(await home.next(since((m) => m.topic === topic(fixture.frontDoor, 'event')), 'the jam event'))).toMatchObject({ event_type: 'jammed', user: null });
    expect(home.last(topic(fixture.frontDoor, 'state'))?.payload).toBe('JAMMED');
    expect(await fixture.control({ op: 'manual', lock_id: fixture.frontDoor, bolt: 'locked' })).toMatchObject({ ok: true });
    await until(() => home.last(topic(fixture.frontDoor, 'state'))?.payload === 'LOCKED', 'LOCKED after the manual turn');
    expect(json(await home.next(since((m) => m.topic === topic(fixture.frontDoor, 'event') && json(m).event_type === 'locked'), 'the manual event'))).toMatchObject({
      user: null,
      via: 'manual',
    });
  });

  it('announces again when Home Assistant says it is online', async () => {
    const since = after(home.messages.length);
    await publish('homeassistant/status', 'online');
    await home.next(since((m) => m.topic === `homeassistant/device/${BASE}_${fixture.frontDoor}/config` && m.payload !== ''), 'the device message again');
    await home.next(since((m) => m.topic === `homeassistant/device/${BASE}_${fixture.buildingDoor}/config` && m.payload !== ''), 'the Opener\'s device message again');
  });

  it('empties the device message and retained topics of a lock of this site that is no longer configured', async () => {
    const gone = '0b5e5f3a-1111-4222-8333-444455556666';
    const since = after(home.messages.length);
    await publish(`homeassistant/device/${BASE}_${gone}/config`, JSON.stringify({ dev: { ids: [`${BASE}_${gone}`] }, o: { name: 'x' }, cmps: {} }), true);
    await publish(`homeassistant/device/othersite_${gone}/config`, JSON.stringify({ dev: { ids: ['x'] }, o: { name: 'x' }, cmps: {} }), true);
    await home.next(since((m) => m.topic === `homeassistant/device/${BASE}_${gone}/config` && m.payload === ''), 'the emptied device message');
    await home.next(since((m) => m.topic === `${BASE}/${gone}/state` && m.payload === ''), 'the emptied state');
    // Another site's device is not ours to remove.
    expect(home.messages.filter(since((m) => m.topic === `homeassistant/device/othersite_${gone}/config` && m.payload === ''))).toHaveLength(0);
    await publish(`homeassistant/device/othersite_${gone}/config`, '', true);
  });

  it('a broker that goes away touches no command; everything retained is published again when it is back', async () => {
    await home.close();
    await broker.stop();
    // The API and the locks carry on without the broker.
    const answer = await fixture.call(fixture.owner.token, 'POST', `/locks/${fixture.frontDoor}/commands`, { type: 'unlock' });
    expect(answer.status).toBe(201);
    expect(await fixture.untilFinished(fixture.owner.token, fixture.frontDoor, String(answer.body.id))).toMatchObject({ status: 'completed' });
    await until(() => fixture.test.logger.lines.some((line) => line.level === 'warn' && line.message.includes('HomeKit, the API and commands carry on')), 'the one line about the lost broker');
    await broker.start();
    // No persistence: whatever the new broker holds, the service published after it came back.
    home = await watchBroker(broker, [`${BASE}/#`, 'homeassistant/#']);
    expect(await home.next((m) => m.topic === `${BASE}/status`, 'the status again', 20_000)).toMatchObject({ payload: 'online', retain: true });
    expect(await home.next((m) => m.topic === topic(fixture.frontDoor, 'state'), 'the state again', 20_000)).toMatchObject({ payload: 'UNLOCKED', retain: true });
    await home.next((m) => m.topic === `homeassistant/device/${BASE}_${fixture.frontDoor}/config`, 'the device message again', 20_000);
    expect(fixture.test.logger.lines.filter((line) => line.message.includes('HomeKit, the API and commands carry on'))).toHaveLength(1);
  });

  it('says offline (retained) at a clean stop', async () => {
    const stopped = after(home.messages.length);
    await fixture.test.service.mqtt?.stop();
    expect(await home.next(stopped((m) => m.topic === `${BASE}/status`), 'offline at the stop')).toMatchObject({ payload: 'offline', retain: true });
  });
});

describe('MQTT: an acting user who does not manage the lock, MQTT 5, and a broker that is not there', () => {
  let broker: MosquittoBroker;

  beforeAll(async () => {
    broker = await startMosquitto();
  });
  afterAll(async () => {
    await broker.close();
  });

  it('refuses commands of an acting user who only holds a guest-level key, logged, with a refused command_result', async () => {
    const fixture = await startCommandFixture({
      signInOthers: false,
      config: { mqtt: { url: broker.url, username: broker.username, password: broker.password, base_topic: 'site-b', acting_user: 'alex@example.com', protocol_version: '5' } },
    });
    const home = await watchBroker(broker, ['site-b/#'], { protocolVersion: 5 });
    try {
      const alex = fixture.test.demo.users[1];
      if (alex === undefined) throw new Error('no second user');
      fixture.grantKey(alex.id, fixture.frontDoor, { type: 'anytime' });
      await home.next((m) => m.topic === `site-b/${fixture.frontDoor}/state`, 'the state over MQTT 5');
      await home.client.publishAsync(`site-b/${fixture.frontDoor}/set`, 'UNLOCK', { qos: 1 });
      const result = await home.next((m) => m.topic === `site-b/${fixture.frontDoor}/command_result`, 'the refusal');
      expect(json(result)).toEqual({ command_id: null, type: 'unlock', status: 'refused', failure_reason: 'not_permitted' });
      expect(fixture.test.logger.lines.some((line) => line.level === 'warn' && line.message.includes('refused (not_permitted)'))).toBe(true);
      const count = fixture.test.service.db.prepare("SELECT COUNT(*) AS n FROM commands WHERE origin = 'mqtt'").get() as { n: number };
      expect(count.n).toBe(0);
    } finally {
      await home.close();
      await fixture.test.close();
    }
  });

  it('refuses wrong credentials with one plain line and runs on', async () => {
    const fixture = await startCommandFixture({ signInOthers: false, config: { mqtt: { url: broker.url, username: broker.username, password: 'wrong-password' } } });
    try {
      await until(() => fixture.test.logger.lines.some((line) => line.message.includes('refused the user name or password')), 'the credentials line');
      expect(fixture.test.logger.text()).not.toContain('wrong-password');
      const answer = await fixture.call(fixture.owner.token, 'POST', `/locks/${fixture.frontDoor}/commands`, { type: 'unlock' });
      expect(answer.status).toBe(201);
    } finally {
      await fixture.test.close();
    }
  });

  it('starts with a dead broker: the service and its commands run, one line says why', async () => {
    const dead = await startMosquitto();
    const url = dead.url;
    await dead.close();
    const fixture = await startCommandFixture({ signInOthers: false, config: { mqtt: { url, username: 'x', password: 'y' } } });
    try {
      const answer = await fixture.call(fixture.owner.token, 'POST', `/locks/${fixture.frontDoor}/commands`, { type: 'unlock' });
      expect(answer.status).toBe(201);
      expect(await fixture.untilFinished(fixture.owner.token, fixture.frontDoor, String(answer.body.id))).toMatchObject({ status: 'completed' });
      await until(() => fixture.test.logger.lines.some((line) => line.message.includes('connection refused')), 'the refused line');
      expect(fixture.test.logger.lines.filter((line) => line.message.includes('connection refused'))).toHaveLength(1);
    } finally {
      await fixture.test.close();
    }
  });
});
