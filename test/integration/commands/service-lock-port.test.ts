import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { LockChange, LockPort } from '../../../src/lock-port/lock-port.js';
import { startCommandFixture, untilOnline, type CommandFixture } from './command-fixture.js';

/** Each test has its own service (the demo household, Front Door online and locked): none depends on another's turn. */
describe('ServiceRoot.lockPort() on the real runtime', () => {
  let fx: CommandFixture;
  let port: LockPort;
  let changes: LockChange[];

  beforeEach(async () => {
    fx = await startCommandFixture({ signInOthers: false });
    await untilOnline(fx, fx.frontDoor);
    port = fx.test.service.lockPort();
    changes = [];
    port.subscribe((change) => changes.push(change));
  });

  afterEach(async () => {
    await fx.test.close();
  });

  it('lists every lock from memory, with its state', () => {
    const locks = port.listLocks();
    expect(locks.map((lock) => lock.id).sort()).toEqual([fx.frontDoor, fx.gardenGate, fx.backDoor, fx.buildingDoor, fx.sideDoor].sort());
    // The port carries what each lock can do, never its family (docs/design.md §2): a TTLock's bolt state is assumed (§4f).
    expect(port.getLock(fx.sideDoor)?.capabilities).toEqual({ keypad: true, doorSensor: false, opener: false, boltAssumed: true });
    expect(port.getLock(fx.frontDoor)?.capabilities).toEqual({ keypad: false, doorSensor: false, opener: false, boltAssumed: false });
    expect(port.getLock(fx.frontDoor)).toMatchObject({ name: 'Front Door', bolt: 'locked', online: true, batteryLevel: 1, ownerId: fx.owner.id, bleAddress: 'D0:E1:00:00:00:01' });
    expect(port.getLock(fx.gardenGate)).toMatchObject({ online: false });
    expect(port.getLock('00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });

  it('moves the bolt through the command engine as the given user; the command is in the history', async () => {
    const result = await port.requestBolt(fx.frontDoor, 'unlocked', fx.owner.id);
    expect(result).toMatchObject({ status: 'completed', bolt: 'unlocked' });
    if (result.status !== 'completed') throw new Error('not completed');
    const command = await fx.call(fx.owner.token, 'GET', `/locks/${fx.frontDoor}/commands/${result.commandId}`);
    expect(command.body).toMatchObject({ status: 'completed', type: 'unlock', requested_by: fx.owner.id });
    expect(changes).toContainEqual({ kind: 'bolt', lockId: fx.frontDoor, bolt: 'unlocked', source: 'remote' });
    expect(port.getLock(fx.frontDoor)?.bolt).toBe('unlocked');
  });

  it('reports a jam as a failed command and a jammed bolt', async () => {
    // The bolt has to move to jam: start from unlocked.
    expect(await fx.control({ op: 'manual', lock_id: fx.frontDoor, bolt: 'unlocked' })).toEqual({ ok: true });
    await fx.control({ op: 'jam', lock_id: fx.frontDoor });
    expect(await port.requestBolt(fx.frontDoor, 'locked', fx.owner.id)).toMatchObject({ status: 'failed', reason: 'jammed' });
    expect(port.getLock(fx.frontDoor)?.bolt).toBe('jammed');
    await fx.control({ op: 'manual', lock_id: fx.frontDoor, bolt: 'locked' });
    expect(port.getLock(fx.frontDoor)?.bolt).toBe('locked');
  });

  it('refuses without queueing: no gateway, no key, unknown user, unknown lock', async () => {
    const stranger = fx.test.demo.users[1]?.id ?? '';
    expect(await port.requestBolt(fx.gardenGate, 'unlocked', fx.owner.id)).toEqual({ status: 'rejected', reason: 'lock_unreachable' });
    expect(await port.requestBolt(fx.frontDoor, 'unlocked', stranger)).toEqual({ status: 'rejected', reason: 'no_usable_key' });
    expect(await port.requestBolt(fx.frontDoor, 'unlocked', '00000000-0000-4000-8000-000000000001')).toEqual({ status: 'rejected', reason: 'unknown_user' });
    expect(await port.requestBolt('00000000-0000-4000-8000-000000000000', 'unlocked', fx.owner.id)).toEqual({ status: 'rejected', reason: 'unknown_lock' });
  });

  it('announces a live tap by a usable key with the tapping user', async () => {
    const entry = await fx.ownerLock(fx.frontDoor);
    expect(await fx.control({ op: 'tap', lock_id: fx.frontDoor, ekey_id: String(entry?.ekey_id), action: 'unlock' })).toEqual({ ok: true });
    expect(changes).toContainEqual({ kind: 'tap', lockId: fx.frontDoor, userId: fx.owner.id, action: 'unlock' });
    expect(changes).toContainEqual({ kind: 'bolt', lockId: fx.frontDoor, bolt: 'unlocked', source: 'tap' });
  });

  it('tells adapters which commands each lock runs (docs/design.md §4d): unlatch on the Smart Lock, the modes on the Opener', () => {
    expect(port.getLock(fx.frontDoor)?.commands).toEqual(['lock', 'unlock']);
    expect(port.getLock(fx.backDoor)?.commands).toContain('unlatch');
    expect(port.getLock(fx.buildingDoor)?.commands).toEqual(expect.arrayContaining(['ring_to_open_on', 'continuous_mode_off']));
    expect(port.getLock(fx.buildingDoor)?.commands).not.toContain('unlatch');
  });

  it("runs the Opener's mode commands, reports its modes from its own state, and a live ring as a ring change", async () => {
    changes.length = 0;
    expect(await port.requestCommand(fx.buildingDoor, 'ring_to_open_on', fx.owner.id)).toMatchObject({ status: 'completed', bolt: 'unlocked' });
    expect(port.getLock(fx.buildingDoor)?.modes).toEqual({ ringToOpen: true, continuousMode: false });
    expect(changes).toContainEqual({ kind: 'modes', lockId: fx.buildingDoor, modes: { ringToOpen: true, continuousMode: false } });
    changes.length = 0;
    expect(await fx.control({ op: 'ring', lock_id: fx.buildingDoor })).toEqual({ ok: true });
    expect(changes).toContainEqual({ kind: 'ring', lockId: fx.buildingDoor, opened: true });
    // The Opener ended Ring to Open on that ring, as the real one does.
    expect(changes).toContainEqual({ kind: 'modes', lockId: fx.buildingDoor, modes: { ringToOpen: false, continuousMode: false } });
    expect(port.getLock(fx.buildingDoor)?.bolt).toBe('locked');
    // The strike: completed, and the Opener is locked again when it answers.
    expect(await port.requestCommand(fx.buildingDoor, 'unlock', fx.owner.id)).toMatchObject({ status: 'completed', bolt: 'locked' });
    expect(await port.requestCommand(fx.buildingDoor, 'unlatch', fx.owner.id)).toEqual({ status: 'rejected', reason: 'unsupported_command' });
  });

  it('resolves users by e-mail, case-insensitively', () => {
    const owner = fx.test.demo.users[0];
    expect(port.resolveUser(String(owner?.email).toUpperCase())).toMatchObject({ id: fx.owner.id });
    expect(port.resolveUser('nobody@example.com')).toBeNull();
  });
});
