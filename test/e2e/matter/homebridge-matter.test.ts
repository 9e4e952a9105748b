import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { DoorLock } from '@matter/main/clusters/door-lock';
import { Status } from '@matter/main/types';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_CONTROL_ENV } from '../../../src/homebridge/demo-control-channel.js';
import { call, signInDemoUser } from '../../support/demo-process.js';
import { buildPluginFolder, canUsePrivateNetwork, describeWhen } from '../../support/homebridge-process.js';
import { MatterHomebridgeSupervisor, type MatterControllerProcess, type MatterHomebridgeSetup, type RunningMatterHomebridge } from '../../support/matter-homebridge.js';
import type { OAuthTokens } from '../../support/oauth-login.js';
import { DemoControlClient } from '../../support/demo-control-client.js';
import { readUntil } from '../../support/polling.js';

/*
 * The real `homebridge` binary (2.4) with Matter enabled on its bridge and this plugin in demo
 * mode, commissioned by a matter.js controller (test/support/matter-controller.mjs) in the same
 * private network namespace (docs/design.md §5b, docs/matter.md). The simulated locks
 * are driven through the demo control socket and read back over Matter.
 */

interface MatterLockEndpoint {
  endpoint: number;
  name: string;
  serial: string;
}

const describeE2E = describeWhen(canUsePrivateNetwork(), 'The Matter end-to-end test runs Homebridge in a private network namespace and needs root (unshare -n, nsenter, ip). Run as root.');

describeE2E('Homebridge with Matter and eKey Locks, driven by a matter.js controller', () => {
  const supervisor = new MatterHomebridgeSupervisor();
  const storage = mkdtempSync(join(tmpdir(), 'ekey-hb-matter-'));
  const controllerStorage = mkdtempSync(join(tmpdir(), 'ekey-matter-controller-'));
  const controlPath = join(supervisor.socketFolder, 'control.sock');
  let pluginFolder = '';
  let setup: MatterHomebridgeSetup;
  let homebridge: RunningMatterHomebridge;
  let controller: MatterControllerProcess;
  let control: DemoControlClient;
  let locks: MatterLockEndpoint[] = [];
  let tokens: OAuthTokens;

  const lockId = (name: string): string => homebridge.demo.locks.find((lock) => lock.name === name)?.id ?? '';
  const endpointOf = (name: string): number => {
    const found = locks.find((lock) => lock.name === name);
    if (!found) throw new Error(`no Matter door lock named ${name}`);
    return found.endpoint;
  };
  const readLockState = async (name: string): Promise<number | null> => {
    const answer = await controller.expectOk('read', { endpoint: endpointOf(name) });
    return answer.lockState as number | null;
  };
  /** Reads the lock state until `expected` or the budget (a real read each time, no subscription); answers the last read. */
  const lockStateWithin = (name: string, expected: number | null, withinMs: number): Promise<number | null> =>
    readUntil(() => readLockState(name), (value) => value === expected, { timeoutMs: withinMs, everyMs: 50 });
  const api = async <T>(path: string): Promise<T> => {
    const answer = await call(homebridge.apiUrl, 'GET', path, { token: tokens.access_token });
    expect(answer.status).toBe(200);
    return answer.body as T;
  };
  const owner = (): { id: string; email: string; password: string } => {
    const ownerId = homebridge.demo.locks[0]?.owner_id;
    const user = homebridge.demo.users.find((candidate) => candidate.id === ownerId);
    if (!user) throw new Error('no demo owner');
    return user;
  };

  /** Starts Homebridge on the same storage, opens the control socket and signs the owner in. */
  async function startAndSignIn(): Promise<void> {
    homebridge = await supervisor.start(setup);
    control = new DemoControlClient(controlPath);
    tokens = await signInDemoUser(homebridge.apiUrl, homebridge.demo, owner().email);
  }

  beforeAll(async () => {
    pluginFolder = buildPluginFolder();
    setup = { storage, pluginFolder, platform: { demo: true }, env: { [DEMO_CONTROL_ENV]: controlPath } };
    await startAndSignIn();
    controller = await supervisor.controller(controllerStorage);
    await controller.expectOk('commission', { pairingCode: homebridge.manualPairingCode }, 60_000);
  }, 180_000);

  afterAll(async () => {
    try {
      (control as DemoControlClient | undefined)?.close();
      await (controller as MatterControllerProcess | undefined)?.close().catch(() => undefined);
      await (homebridge as RunningMatterHomebridge | undefined)?.stop().catch(() => undefined);
    } finally {
      await supervisor.dispose();
      for (const folder of [storage, controllerStorage]) rmSync(folder, { recursive: true, force: true });
      if (pluginFolder !== '') rmSync(pluginFolder, { recursive: true, force: true });
    }
  }, 30_000);

  it('shows one Matter DoorLock per demo lock, each in the state the API reports', async () => {
    locks = (await controller.expectOk('locks')).locks as MatterLockEndpoint[];
    expect(locks.map((lock) => lock.name).sort()).toEqual(['Back Door', 'Building Door', 'Front Door', 'Garden Gate', 'Side Door']);
    expect(new Set(locks.map((lock) => lock.endpoint)).size).toBe(5);
    expect(locks.find((lock) => lock.name === 'Front Door')?.serial).toBe('D0:E1:00:00:00:01');

    const listed = await api<{ locks: { id: string; bolt_state: string }[] }>(`/users/${owner().id}/locks`);
    const expected: Record<string, number | null> = { locked: DoorLock.LockState.Locked, unlocked: DoorLock.LockState.Unlocked, jammed: DoorLock.LockState.NotFullyLocked, unknown: null };
    for (const name of ['Front Door', 'Garden Gate', 'Back Door', 'Building Door', 'Side Door']) {
      const bolt = listed.locks.find((lock) => lock.id === lockId(name))?.bolt_state ?? 'missing';
      expect([name, await readLockState(name)]).toEqual([name, expected[bolt]]);
    }
    expect(await readLockState('Front Door')).toBe(DoorLock.LockState.Locked);
  }, 30_000);

  it('unlocks Front Door from UnlockDoor, as the HomeKit user, recorded in the history', async () => {
    const answer = await controller.request('invoke', { endpoint: endpointOf('Front Door'), command: 'unlockDoor' });
    expect(answer).toMatchObject({ ok: true });
    expect(await readLockState('Front Door')).toBe(DoorLock.LockState.Unlocked);
    const history = await api<{ lock_events: { type: string; performer?: { id: string } }[] }>(`/locks/${lockId('Front Door')}/events?limit=1`);
    // The HomeKit user is the lock's owner unless homekit.user_email says otherwise (docs/design.md §5).
    expect(history.lock_events[0]).toMatchObject({ type: 'unlock', performer: { id: owner().id } });
  }, 30_000);

  it('opens the strike of Building Door (the Nuki Opener) from UnlockDoor: an unlock event by the HomeKit user, and the Opener locked again after', async () => {
    const answer = await controller.request('invoke', { endpoint: endpointOf('Building Door'), command: 'unlockDoor' });
    expect(answer).toMatchObject({ ok: true });
    const history = await api<{ lock_events: { type: string; mode?: string; performer?: { id: string } }[] }>(`/locks/${lockId('Building Door')}/events?limit=1`);
    expect(history.lock_events[0]).toMatchObject({ type: 'unlock', performer: { id: owner().id } });
    expect(history.lock_events[0]).not.toHaveProperty('mode');
    expect(await lockStateWithin('Building Door', DoorLock.LockState.Locked, 2000)).toBe(DoorLock.LockState.Locked);
  }, 30_000);

  it('shows a tap at the lock (a control line) within 2 s', async () => {
    const keys = await api<{ ekeys: { id: string; type?: string }[] }>(`/locks/${lockId('Front Door')}/ekeys`);
    const ownerKey = keys.ekeys.find((key) => key.type === 'owner');
    expect(ownerKey).toBeDefined();
    await control.send({ op: 'tap', lock_id: lockId('Front Door'), ekey_id: ownerKey?.id, action: 'lock' });
    expect(await lockStateWithin('Front Door', DoorLock.LockState.Locked, 2000)).toBe(DoorLock.LockState.Locked);
  }, 30_000);

  it('answers LockDoor on the lock without a gateway with an error status and leaves its state', async () => {
    const before = await readLockState('Garden Gate');
    const answer = await controller.request('invoke', { endpoint: endpointOf('Garden Gate'), command: 'lockDoor' });
    expect(answer).toMatchObject({ ok: false, status: Status.Failure });
    expect(await readLockState('Garden Gate')).toBe(before);
  }, 30_000);

  it('shows a jam as NotFullyLocked and answers the jammed command with an error status', async () => {
    await control.send({ op: 'jam', lock_id: lockId('Front Door') });
    const answer = await controller.request('invoke', { endpoint: endpointOf('Front Door'), command: 'unlockDoor' });
    expect(answer).toMatchObject({ ok: false, status: Status.Failure });
    expect(await lockStateWithin('Front Door', DoorLock.LockState.NotFullyLocked, 2000)).toBe(DoorLock.LockState.NotFullyLocked);
    // A manual turn frees the bolt; Matter follows.
    await control.send({ op: 'manual', lock_id: lockId('Front Door'), bolt: 'unlocked' });
    expect(await lockStateWithin('Front Door', DoorLock.LockState.Unlocked, 2000)).toBe(DoorLock.LockState.Unlocked);
  }, 30_000);

  it('shows a lock that cannot be reached as not reachable, keeping its last state', async () => {
    await expect(controller.expectOk('read', { endpoint: endpointOf('Garden Gate') })).resolves.toMatchObject({ reachable: false });
    const readFront = async (): Promise<unknown> => (await controller.expectOk('read', { endpoint: endpointOf('Front Door') })).reachable;
    expect(await readFront()).toBe(true);
    await control.send({ op: 'offline', lock_id: lockId('Front Door') });
    expect(await readUntil(readFront, (reachable) => reachable === false, { timeoutMs: 2000, everyMs: 50 })).toBe(false);
    expect(await readLockState('Front Door')).toBe(DoorLock.LockState.Unlocked);
    await control.send({ op: 'online', lock_id: lockId('Front Door') });
    expect(await readUntil(readFront, (reachable) => reachable === true, { everyMs: 100 })).toBe(true);
  }, 30_000);

  it('shows the battery in the Power Source cluster of the lock’s endpoint', async () => {
    await control.send({ op: 'battery', lock_id: lockId('Front Door'), level: 0.42 });
    const answer = await readUntil(() => controller.expectOk('read', { endpoint: endpointOf('Front Door') }), (read) => read.batPercentRemaining === 84, { timeoutMs: 2000, everyMs: 50 });
    expect(answer.batPercentRemaining).toBe(84);
  }, 30_000);

  it('keeps the endpoints across a Homebridge restart and follows the lock again', async () => {
    await controller.close();
    control.close();
    await homebridge.stop();
    await startAndSignIn();
    expect(homebridge.output()).toContain('Restored Matter door lock Front Door');

    controller = await supervisor.controller(controllerStorage);
    await controller.expectOk('connect', {}, 60_000);
    const after = (await controller.expectOk('locks')).locks as MatterLockEndpoint[];
    const byName = (list: MatterLockEndpoint[]): [string, number][] => list.map((lock): [string, number] => [lock.name, lock.endpoint]).sort();
    expect(byName(after)).toEqual(byName(locks));
    expect(await lockStateWithin('Front Door', DoorLock.LockState.Unlocked, 5000)).toBe(DoorLock.LockState.Unlocked);
    await expect(controller.request('invoke', { endpoint: endpointOf('Front Door'), command: 'lockDoor' })).resolves.toMatchObject({ ok: true });
    expect(await readLockState('Front Door')).toBe(DoorLock.LockState.Locked);
  }, 90_000);
});
