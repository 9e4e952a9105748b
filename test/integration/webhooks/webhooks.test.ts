/**
 * Webhooks (docs/design.md §11, docs/webhooks.md) end to end: the owners' /webhooks endpoints,
 * Standard Webhooks deliveries to a real HTTP receiver on loopback verified with the
 * `standardwebhooks` library, the retry schedule with the same webhook-id, 410 Gone, the 15 s
 * timeout (shortened here), the delivery log with manual retry, and pending deliveries that outlive
 * a restart.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { startCommandFixture, untilOnline, type CommandFixture } from '../commands/command-fixture.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../../support/webhook-receiver.js';
import { readUntil, until } from '../../support/polling.js';
import { ManualClock } from '../../support/manual-clock.js';

type Json = Record<string, unknown>;

/**
 * The body of a delivery whose signature the library agrees with, at the delivery's own timestamp
 * (the tests move the service's clock, so the library's ±5 min check against the wall clock is
 * made only where that clock has not moved); throws on a bad signature.
 */
function verified(secret: string, delivery: ReceivedDelivery): Json {
  const id = String(delivery.headers['webhook-id']);
  const at = new Date(Number(delivery.headers['webhook-timestamp']) * 1000);
  if (new Webhook(secret).sign(id, at, delivery.body) !== delivery.headers['webhook-signature']) throw new Error(`bad signature on ${id}`);
  return JSON.parse(delivery.body) as Json;
}

describe('webhooks', () => {
  let fixture: CommandFixture;
  let receiver: WebhookReceiver;
  const created: string[] = [];

  const owner = (method: string, path: string, body?: unknown) => fixture.call(fixture.owner.token, method, path, body);
  const add = async (body: Json): Promise<Json> => {
    const answer = await owner('POST', '/webhooks', body);
    expect(answer.status).toBe(201);
    created.push(String(answer.body.id));
    return answer.body;
  };
  const deliveries = async (webhookId: string): Promise<Json[]> => (await owner('GET', `/webhooks/${webhookId}/deliveries`)).body as unknown as Json[];
  const sender = () => fixture.test.service.webhooks.sender;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    fixture = await startCommandFixture({ webhookSender: { timeoutMs: 400 } });
    await untilOnline(fixture, fixture.frontDoor);
  });

  afterEach(async () => {
    for (const id of created.splice(0)) await owner('DELETE', `/webhooks/${id}`);
    receiver.answerWith(() => 204);
    receiver.received.length = 0;
    await sender().idle();
  });

  afterAll(async () => {
    await fixture.test.close();
    await receiver.close();
  });

  it('adds a webhook for an owner and shows its whsec_ secret once', async () => {
    const webhook = await add({ url: receiver.url, events: ['lock.unlocked', 'lock.locked'] });
    expect(webhook).toEqual({
      id: expect.any(String),
      url: receiver.url,
      events: ['lock.unlocked', 'lock.locked'],
      lock_ids: null,
      state: 'active',
      disabled_reason: null,
      dropped_deliveries: 0,
      created_at: expect.stringMatching(/Z$/),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const listed = (await owner('GET', '/webhooks')).body as unknown as Json[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('secret');
    expect((await owner('GET', `/webhooks/${String(webhook.id)}`)).body).not.toHaveProperty('secret');
  });

  it('refuses a user who owns no lock (403), an unknown event type and a lock not theirs (400); hides one user\'s webhook from another (404)', async () => {
    const [alex] = fixture.others;
    if (alex === undefined) throw new Error('no second user');
    const refused = await fixture.call(alex.token, 'POST', '/webhooks', { url: receiver.url, events: ['*'] });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('webhooks_need_owner');
    const bad = await owner('POST', '/webhooks', { url: 'ftp://example.org/x', events: ['lock.opened'], lock_ids: ['0b5e5f3a-1111-4222-8333-444455556666'] });
    expect(bad.status).toBe(400);
    expect((bad.body.errors as Json[]).map((error) => error.field).sort()).toEqual(['/events/0', '/lock_ids/0', '/url']);
    const mine = await add({ url: receiver.url, events: ['*'] });
    expect((await fixture.call(alex.token, 'GET', `/webhooks/${String(mine.id)}`)).status).toBe(404);
    expect((await fixture.call(alex.token, 'DELETE', `/webhooks/${String(mine.id)}`)).status).toBe(404);
    expect((await fixture.call(alex.token, 'GET', '/webhooks')).body).toEqual([]);
  });

  it('delivers a lock event signed the Standard Webhooks way: who, how, and the same id in the log', async () => {
    const webhook = await add({ url: receiver.url, events: ['lock.unlocked'] });
    const answer = await owner('POST', `/locks/${fixture.frontDoor}/commands`, { type: 'unlock' });
    await fixture.untilFinished(fixture.owner.token, fixture.frontDoor, String(answer.body.id));
    const delivery = await receiver.nth(1);
    // The receiver's check exactly as the library's users write it (timestamp within 5 minutes).
    const body = new Webhook(String(webhook.secret)).verify(delivery.body, delivery.headers as Record<string, string>);
    expect(verified(String(webhook.secret), delivery)).toEqual(body);
    expect(() => new Webhook(String(webhook.secret)).verify(delivery.body.replace('Front Door', 'Front Doer'), delivery.headers as Record<string, string>)).toThrow();
    expect(body).toEqual({
      type: 'lock.unlocked',
      timestamp: expect.stringMatching(/Z$/),
      data: {
        lock_id: fixture.frontDoor,
        lock_name: 'Front Door',
        event_id: expect.any(String),
        user: fixture.test.demo.users[0]?.name,
        user_id: fixture.owner.id,
        method: 'app',
        command_id: answer.body.id,
      },
    });
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(delivery.headers['content-type']).toBe('application/json');
    const log = await readUntil(() => deliveries(String(webhook.id)), (list) => list[0]?.status === 'delivered');
    expect(log).toEqual([
      {
        id: delivery.headers['webhook-id'],
        event_type: 'lock.unlocked',
        status: 'delivered',
        attempts: 1,
        last_status_code: 204,
        last_error: null,
        next_attempt_at: null,
        created_at: expect.any(String),
        payload: delivery.body,
      },
    ]);
    // Only the types asked for: the lock command's own command.completed and the next lock are not sent.
    const lock = await owner('POST', `/locks/${fixture.frontDoor}/commands`, { type: 'lock' });
    await fixture.untilFinished(fixture.owner.token, fixture.frontDoor, String(lock.body.id));
    fixture.test.service.webhooks.fanout.flush();
    await sender().idle();
    expect(receiver.received).toHaveLength(1);
    expect(await deliveries(String(webhook.id))).toHaveLength(1);
  });

  it('hears only of the locks it was limited to', async () => {
    const webhook = await add({ url: receiver.url, events: ['*'], lock_ids: [fixture.backDoor] });
    await owner('POST', `/locks/${fixture.frontDoor}/commands`, { type: 'unlock' });
    const back = await owner('POST', `/locks/${fixture.backDoor}/commands`, { type: 'unlock' });
    await fixture.untilFinished(fixture.owner.token, fixture.backDoor, String(back.body.id));
    const types = await readUntil(
      () => receiver.received.map((delivery) => verified(String(webhook.secret), delivery)),
      (bodies) => bodies.length >= 2,
    );
    for (const body of types) expect((body.data as Json).lock_id).toBe(fixture.backDoor);
    expect(types.map((body) => body.type).sort()).toEqual(['command.completed', 'lock.unlocked']);
  });

  it('retries a failed delivery on the schedule with the same webhook-id, then delivers; a 3xx is a failure', async () => {
    const webhook = await add({ url: receiver.url, events: ['lock.locked'] });
    receiver.answerWith(() => 503);
    const answer = await owner('POST', `/locks/${fixture.frontDoor}/commands`, { type: 'lock' });
    await fixture.untilFinished(fixture.owner.token, fixture.frontDoor, String(answer.body.id));
    const first = await receiver.nth(1);
    const clock = fixture.test.clock;
    const failedOnce = await readUntil(() => deliveries(String(webhook.id)), (list) => list[0]?.attempts === 1);
    expect(failedOnce[0]).toMatchObject({ status: 'pending', last_status_code: 503, last_error: 'answered 503', next_attempt_at: new Date(clock.now() + 5_000).toISOString() });
    // Not before it is due.
    sender().wake();
    await sender().idle();
    expect(receiver.received).toHaveLength(1);
    receiver.answerWith(() => 302);
    clock.advance(5_000);
    sender().wake();
    const second = await receiver.nth(2);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    const redirected = await readUntil(() => deliveries(String(webhook.id)), (list) => list[0]?.attempts === 2);
    expect(redirected[0]).toMatchObject({ status: 'pending', last_status_code: 302, next_attempt_at: new Date(clock.now() + 5 * 60_000).toISOString() });
    receiver.answerWith(() => 200);
    clock.advance(5 * 60_000);
    sender().wake();
    const third = await receiver.nth(3);
    expect(third.headers['webhook-id']).toBe(first.headers['webhook-id']);
    // Each attempt is signed at its own time, and the library agrees with every signature.
    const secret = String(webhook.secret);
    const timestamp = Number(third.headers['webhook-timestamp']);
    expect(timestamp).toBe(Math.floor(clock.now() / 1000));
    expect(new Webhook(secret).sign(String(third.headers['webhook-id']), new Date(timestamp * 1000), third.body)).toBe(third.headers['webhook-signature']);
    expect((await readUntil(() => deliveries(String(webhook.id)), (list) => list[0]?.status === 'delivered'))[0]).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200 });
  });

  it('gives up after the seventh attempt (5 s, 5 min, 30 min, 2 h, 5 h, 10 h), and a manual retry sends it again', async () => {
    const webhook = await add({ url: receiver.url, events: ['lock.unlocked'] });
    receiver.answerWith(() => 500);
    const answer = await owner('POST', `/locks/${fixture.frontDoor}/commands`, { type: 'unlock' });
    await fixture.untilFinished(fixture.owner.token, fixture.frontDoor, String(answer.body.id));
    const clock = fixture.test.clock;
    const start = clock.now();
    const delays = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000];
    // A day passes here, longer than the access token lives: the log is read from the service itself.
    const log = () => fixture.test.service.webhooks.service.deliveries(fixture.owner.id, String(webhook.id));
    await receiver.nth(1);
    for (const [index, delay] of delays.entries()) {
      const pending = await readUntil(log, (list) => list[0]?.attempts === index + 1);
      expect(pending[0]?.nextAttemptAt).toBe(clock.now() + delay);
      clock.advance(delay);
      sender().wake();
      await receiver.nth(index + 2);
    }
    expect((await readUntil(log, (list) => list[0]?.status === 'failed'))[0]).toMatchObject({ status: 'failed', attempts: 7, nextAttemptAt: null, lastStatusCode: 500 });
    clock.set(start + 1_000);
    const failed = await deliveries(String(webhook.id));
    expect(failed[0]).toMatchObject({ status: 'failed', attempts: 7, next_attempt_at: null, last_status_code: 500 });
    expect(new Set(receiver.received.map((delivery) => delivery.headers['webhook-id'])).size).toBe(1);
    receiver.answerWith(() => 204);
    const retried = await owner('POST', `/webhooks/${String(webhook.id)}/deliveries/${String(failed[0]?.id)}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: failed[0]?.id, status: 'pending' });
    await receiver.nth(8);
    expect((await readUntil(() => deliveries(String(webhook.id)), (list) => list[0]?.status === 'delivered'))[0]).toMatchObject({ attempts: 8 });
  });

  it('a receiver that does not answer in time fails the attempt; 410 Gone disables the webhook until a manual retry', async () => {
    const webhook = await add({ url: receiver.url, events: ['lock.locked', 'lock.unlocked'] });
    receiver.answerWith(() => 'hang');
    await owner('POST', `/locks/${fixture.frontDoor}/commands`, { type: 'unlock' });
    const timedOut = await readUntil(() => deliveries(String(webhook.id)), (list) => list[0]?.attempts === 1);
    expect(timedOut[0]).toMatchObject({ status: 'pending', last_status_code: null, last_error: 'no answer within 0.4 s' });
    receiver.answerWith(() => 410);
    fixture.test.clock.advance(5_000);
    sender().wake();
    const gone = await readUntil(async () => (await owner('GET', `/webhooks/${String(webhook.id)}`)).body, (body) => body.state === 'disabled');
    expect(gone).toMatchObject({ state: 'disabled', disabled_reason: 'the receiver answered 410 Gone' });
    expect((await deliveries(String(webhook.id)))[0]).toMatchObject({ status: 'failed', last_status_code: 410 });
    // Disabled: new events make no deliveries.
    const before = (await deliveries(String(webhook.id))).length;
    const lock = await owner('POST', `/locks/${fixture.frontDoor}/commands`, { type: 'lock' });
    await fixture.untilFinished(fixture.owner.token, fixture.frontDoor, String(lock.body.id));
    await sender().idle();
    expect(await deliveries(String(webhook.id))).toHaveLength(before);
    receiver.answerWith(() => 204);
    const [last] = await deliveries(String(webhook.id));
    expect((await owner('POST', `/webhooks/${String(webhook.id)}/deliveries/${String(last?.id)}/retry`)).status).toBe(202);
    expect((await owner('GET', `/webhooks/${String(webhook.id)}`)).body).toMatchObject({ state: 'active', disabled_reason: null });
    await until(() => receiver.received.some((delivery) => delivery.headers['webhook-id'] === last?.id && receiver.received.indexOf(delivery) >= 2), 'the retried delivery');
  });

  it('tells eKeys accepted and revoked, and commands that failed', async () => {
    const webhook = await add({ url: receiver.url, events: ['ekey.accepted', 'ekey.revoked', 'command.failed'] });
    const sent = await owner('POST', '/ekey', { lock_id: fixture.backDoor, email: 'blake@example.com', type: 'guest' });
    expect(sent.status).toBe(201);
    expect((await owner('DELETE', `/ekey/${String(sent.body.id)}`)).status).toBe(200);
    expect(await fixture.control({ op: 'jam', lock_id: fixture.backDoor })).toMatchObject({ ok: true });
    const jammed = await owner('POST', `/locks/${fixture.backDoor}/commands`, { type: 'lock' });
    await fixture.untilFinished(fixture.owner.token, fixture.backDoor, String(jammed.body.id));
    const bodies = await readUntil(() => receiver.received.map((delivery) => verified(String(webhook.secret), delivery)), (list) => list.length >= 3);
    expect(bodies.map((body) => [body.type, (body.data as Json).ekey_id ?? (body.data as Json).failure_reason])).toEqual([
      ['ekey.accepted', sent.body.id],
      ['ekey.revoked', sent.body.id],
      ['command.failed', 'jammed'],
    ]);
    expect(await fixture.control({ op: 'manual', lock_id: fixture.backDoor, bolt: 'locked' })).toMatchObject({ ok: true });
  });

  it('a webhook hears nothing once its owner\'s key on the lock has ended (docs/design.md §9b)', async () => {
    // A second owner of Front Door whose key ends in a minute adds a webhook; the first owner's is the witness.
    const second = fixture.others[0];
    if (second === undefined) throw new Error('no second user');
    fixture.grantKey(second.id, fixture.frontDoor, { type: 'owner', validFrom: fixture.test.clock.now() - 1_000, validTo: fixture.test.clock.now() + 60_000 });
    const theirs = await fixture.call(second.token, 'POST', '/webhooks', { url: receiver.url, events: ['lock.unlocked', 'lock.locked'], lock_ids: [fixture.frontDoor] });
    expect(theirs.status).toBe(201);
    created.push(String(theirs.body.id));
    const witness = await add({ url: receiver.url, events: ['lock.unlocked', 'lock.locked'], lock_ids: [fixture.frontDoor] });
    const secrets = { theirs: String(theirs.body.secret), witness: String(witness.secret) };
    const signedWith = (delivery: ReceivedDelivery, secret: string): boolean => {
      try {
        verified(secret, delivery);
        return true;
      } catch {
        return false;
      }
    };
    const command = async (type: string): Promise<void> => {
      const sent = await owner('POST', `/locks/${fixture.frontDoor}/commands`, { type });
      await fixture.untilFinished(fixture.owner.token, fixture.frontDoor, String(sent.body.id));
    };

    await command('unlock');
    await until(() => receiver.received.filter((delivery) => signedWith(delivery, secrets.theirs)).length === 1 && receiver.received.filter((delivery) => signedWith(delivery, secrets.witness)).length === 1, 'both webhooks told of the unlock');

    fixture.test.clock.advance(61_000);
    await command('lock');
    await until(() => receiver.received.filter((delivery) => signedWith(delivery, secrets.witness)).length === 2, "the witness told of the lock");
    await sender().idle();
    expect(receiver.received.filter((delivery) => signedWith(delivery, secrets.theirs))).toHaveLength(1);
  });
});

describe('webhooks across a restart', () => {
  it('sends the deliveries still pending when the service stopped, with their ids', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ekey-webhook-restart-'));
    const clock = new ManualClock(Date.now());
    const down = await startWebhookReceiver();
    const port = down.port;
    await down.close();
    let fixture = await startCommandFixture({ dataDir, clock, signInOthers: false });
    try {
      const added = await fixture.call(fixture.owner.token, 'POST', '/webhooks', { url: `http://127.0.0.1:${port}/hook`, events: ['lock.unlocked'] });
      const secret = String(added.body.secret);
      await untilOnline(fixture, fixture.frontDoor);
      const answer = await fixture.call(fixture.owner.token, 'POST', `/locks/${fixture.frontDoor}/commands`, { type: 'unlock' });
      await fixture.untilFinished(fixture.owner.token, fixture.frontDoor, String(answer.body.id));
      const pending = await readUntil(
        async () => (await fixture.call(fixture.owner.token, 'GET', `/webhooks/${String(added.body.id)}/deliveries`)).body as unknown as Json[],
        (list) => list[0]?.attempts === 1,
      );
      expect(pending[0]).toMatchObject({ status: 'pending', last_error: 'the connection was refused' });
      await fixture.test.close();

      const receiver = await startWebhookReceiver(port);
      try {
        clock.advance(5_000);
        fixture = await startCommandFixture({ dataDir, clock, signInOthers: false });
        const delivery = await receiver.nth(1);
        expect(delivery.headers['webhook-id']).toBe(pending[0]?.id);
        expect(new Webhook(secret).sign(String(delivery.headers['webhook-id']), new Date(Number(delivery.headers['webhook-timestamp']) * 1000), delivery.body)).toBe(
          delivery.headers['webhook-signature'],
        );
        expect(JSON.parse(delivery.body)).toMatchObject({ type: 'lock.unlocked', data: { lock_id: fixture.frontDoor } });
      } finally {
        await receiver.close();
      }
    } finally {
      await fixture.test.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
