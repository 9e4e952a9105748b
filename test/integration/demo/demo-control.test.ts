import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtCli, spawnNode, type RunningChild } from '../../support/child-process.js';
import { call, signInDemoUser, type DemoLine } from '../../support/demo-process.js';
import { untilCommandFinished } from '../../support/polling.js';

describe('ekey-locks demo: the stdin control protocol (docs/design.md §6), end to end through the real CLI', () => {
  let child: RunningChild;
  let dataDir: string;
  let demo: DemoLine;
  let token: string;
  let ownerId: string;
  let frontDoor: string;
  let gardenGate: string;

  const send = async (line: Record<string, unknown> | string): Promise<Record<string, unknown>> => {
    child.process.stdin.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
    return JSON.parse(await child.nextLine(undefined, 10_000)) as Record<string, unknown>;
  };

  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const answer = await call(demo.base_url, method, path, { token, ...(body === undefined ? {} : { body }) });
    return { status: answer.status, body: answer.json };
  };

  const frontDoorEntry = async (): Promise<Record<string, unknown>> => {
    const locks = (await api('GET', `/users/${ownerId}/locks`)).body.locks as Record<string, unknown>[];
    const entry = locks.find((lock) => lock.id === frontDoor);
    if (!entry) throw new Error('Front Door missing from the lock list');
    return entry;
  };

  const finished = (commandId: string): Promise<Record<string, unknown>> =>
    untilCommandFinished(async () => (await api('GET', `/locks/${frontDoor}/commands/${commandId}`)).body);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ekey-demo-control-'));
    child = spawnNode(builtCli(), ['demo', '--data', dataDir]);
    demo = JSON.parse(await child.nextLine(undefined, 20_000)) as DemoLine;
    const owner = demo.users[0];
    if (!owner) throw new Error('demo line lacks users');
    ownerId = owner.id;
    frontDoor = demo.locks.find((lock) => lock.gateway)?.id ?? '';
    gardenGate = demo.locks.find((lock) => !lock.gateway)?.id ?? '';
    token = (await signInDemoUser(demo.base_url, demo)).access_token;
  });

  afterAll(async () => {
    child.kill();
    await child.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows the lock online and commandable as soon as the demo line is printed', async () => {
    expect(await frontDoorEntry()).toMatchObject({ online_status: 'online', bolt_state: 'locked' });
    const created = await api('POST', `/locks/${frontDoor}/commands`, { type: 'lock' });
    expect(created.status).toBe(201);
    expect(await finished(String(created.body.id))).toMatchObject({ status: 'completed' });
  });

  it('answers a malformed line with ok:false and keeps going, echoing the id when there is one', async () => {
    expect(await send('this is not json')).toMatchObject({ ok: false });
    expect(await send('[1,2]')).toMatchObject({ ok: false });
    expect(await send({ op: 'fly', lock_id: frontDoor, id: 7 })).toMatchObject({ ok: false, id: 7 });
    expect(await send({ op: 'battery', lock_id: frontDoor, level: 3, id: 'b' })).toMatchObject({ ok: false, id: 'b' });
    expect(await send({ op: 'tap', lock_id: frontDoor, ekey_id: 'not-a-uuid', action: 'unlock' })).toMatchObject({ ok: false });
    expect(await send({ op: 'jam', lock_id: '00000000-0000-4000-8000-000000000000' })).toMatchObject({ ok: false });
  });

  it('tap: the bolt state and the event are visible through the API when the answer arrives', async () => {
    const ekeyId = String((await frontDoorEntry()).ekey_id);
    expect(await send({ op: 'tap', lock_id: frontDoor, ekey_id: ekeyId, action: 'unlock', id: 'tap-1' })).toEqual({ ok: true, id: 'tap-1' });
    expect((await frontDoorEntry()).bolt_state).toBe('unlocked');
    const events = (await api('GET', `/locks/${frontDoor}/events?type=unlock`)).body.lock_events as Record<string, unknown>[];
    expect(events[0]).toMatchObject({ type: 'unlock', performer: { id: ownerId } });
  });

  it('tap: the lock refuses an eKey it does not know, and the bolt stays', async () => {
    const answer = await send({ op: 'tap', lock_id: frontDoor, ekey_id: '00000000-0000-4000-8000-00000000abcd', action: 'lock', id: 'tap-2' });
    expect(answer).toMatchObject({ ok: false, id: 'tap-2' });
    expect(String(answer.error)).toContain('refuses');
    expect((await frontDoorEntry()).bolt_state).toBe('unlocked');
  });

  it('manual and battery', async () => {
    expect(await send({ op: 'manual', lock_id: frontDoor, bolt: 'locked' })).toEqual({ ok: true });
    expect((await frontDoorEntry()).bolt_state).toBe('locked');
    expect(await send({ op: 'battery', lock_id: frontDoor, level: 0.42 })).toEqual({ ok: true });
    expect((await frontDoorEntry()).battery_level).toBe(0.42);
  });

  it('jam: the next motorised move jams and the bolt stays jammed until a manual turn', async () => {
    expect(await send({ op: 'jam', lock_id: frontDoor })).toEqual({ ok: true });
    const created = await api('POST', `/locks/${frontDoor}/commands`, { type: 'unlock' });
    expect(await finished(String(created.body.id))).toMatchObject({ status: 'failed', failure_reason: 'jammed' });
    expect((await frontDoorEntry()).bolt_state).toBe('jammed');
    expect(await send({ op: 'manual', lock_id: frontDoor, bolt: 'unlocked' })).toEqual({ ok: true });
    expect((await frontDoorEntry()).bolt_state).toBe('unlocked');
  });

  it('offline within 5 s, commands refused with 400; online again, commands work', async () => {
    // Exactly { ok: true }: the demo answers so only once the service shows the lock offline, and
    // adds observed:false when its own 5 s window (docs/design.md §6) runs out first — no test-side clock.
    expect(await send({ op: 'offline', lock_id: frontDoor })).toEqual({ ok: true });
    expect((await frontDoorEntry()).online_status).toBe('offline');
    const refused = await api('POST', `/locks/${frontDoor}/commands`, { type: 'lock' });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('lock_unreachable');

    expect(await send({ op: 'online', lock_id: frontDoor })).toEqual({ ok: true });
    expect((await frontDoorEntry()).online_status).toBe('online');
    const accepted = await api('POST', `/locks/${frontDoor}/commands`, { type: 'lock' });
    expect(accepted.status).toBe(201);
    expect(await finished(String(accepted.body.id))).toMatchObject({ status: 'completed' });
  });

  it('the lock without a gateway connection answers control lines but refuses commands with 400', async () => {
    expect(await send({ op: 'manual', lock_id: gardenGate, bolt: 'unlocked' })).toEqual({ ok: true });
    const refused = await api('POST', `/locks/${gardenGate}/commands`, { type: 'unlock' });
    expect(refused.status).toBe(400);
  });

  it('stops cleanly on SIGTERM', async () => {
    child.process.kill('SIGTERM');
    expect(await child.exited).toEqual({ code: 0, signal: null });
  });
});
