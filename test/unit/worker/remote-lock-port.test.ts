import { describe, expect, it } from '@jest/globals';
import type { CommandResult, LockChange } from '../../../src/lock-port/lock-port.js';
import { RemoteLockPort, type CommandRequester } from '../../../src/worker/remote-lock-port.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { testLock } from '../../support/in-memory-lock-port.js';

const FRONT = testLock({ id: 'front', name: 'Front Door' });
const GATE = testLock({ id: 'gate', name: 'Garden Gate', online: false });
const OLIVIA = { id: 'u-olivia', name: 'Olivia', email: 'Olivia@Example.com' };

function portWith(request: CommandRequester = () => Promise.resolve({ status: 'completed', bolt: 'locked', commandId: 'c1' })): {
  port: RemoteLockPort;
  logger: RecordingLogger;
} {
  const logger = new RecordingLogger();
  const port = new RemoteLockPort(request, logger);
  port.applySnapshot([FRONT, GATE], { 'olivia@example.com': OLIVIA, 'nobody@example.com': null });
  return { port, logger };
}

describe('RemoteLockPort (the mirror on Homebridge’s main thread)', () => {
  it('answers listLocks and getLock synchronously from the snapshot, with copies', () => {
    const { port } = portWith();
    expect(port.listLocks().map((lock) => lock.id)).toEqual(['front', 'gate']);
    const copy = port.getLock('front');
    if (!copy) throw new Error('no lock');
    copy.bolt = 'jammed';
    if (copy.deviceInformation) copy.deviceInformation.model = 'changed';
    expect(port.getLock('front')).toEqual(FRONT);
    expect(port.getLock('nope')).toBeUndefined();
  });

  it('applies each change to the mirror before any listener sees it, in the order they came', () => {
    const { port } = portWith();
    const seen: string[] = [];
    port.subscribe((change) => {
      if (change.kind === 'locks_changed') return;
      const lock = port.getLock(change.lockId);
      seen.push(`${change.kind}:${lock?.bolt ?? '-'}:${String(lock?.batteryLevel)}:${String(lock?.online)}`);
    });
    port.applyChange({ kind: 'bolt', lockId: 'front', bolt: 'unlocked', source: 'tap' }, { ...FRONT, bolt: 'unlocked', lastActivitySource: 'tap' });
    port.applyChange({ kind: 'battery', lockId: 'front', level: 0.1 }, { ...FRONT, bolt: 'unlocked', lastActivitySource: 'tap', batteryLevel: 0.1 });
    port.applyChange({ kind: 'connectivity', lockId: 'gate', online: true }, { ...GATE, online: true });
    expect(seen).toEqual(['bolt:unlocked:0.9:true', 'battery:unlocked:0.1:true', 'connectivity:locked:0.9:true']);
    expect(port.getLock('front')?.lastActivitySource).toBe('tap');
  });

  it('patches the mirror from the change itself when the worker sent no lock', () => {
    const { port } = portWith();
    const changes: LockChange[] = [
      { kind: 'moving', lockId: 'front', moving: true },
      { kind: 'bolt', lockId: 'front', bolt: 'unlocked', source: 'remote' },
      { kind: 'battery', lockId: 'front', level: 0.3 },
      { kind: 'door', lockId: 'front', door: 'open' },
      { kind: 'connectivity', lockId: 'front', online: false },
      { kind: 'device_information', lockId: 'front', deviceInformation: { manufacturer: 'M', model: 'X', serial: 'S', firmware: '2' }, serialNumber: 'S-1' },
    ];
    for (const change of changes) port.applyChange(change);
    expect(port.getLock('front')).toMatchObject({ moving: true, bolt: 'unlocked', lastActivitySource: 'remote', batteryLevel: 0.3, door: 'open', online: false });
    expect(port.getLock('front')?.deviceInformation?.model).toBe('X');
    expect(port.getLock('front')?.serialNumber).toBe('S-1');
  });

  it('replaces the list on locks_changed and forgets a lock sent as null', () => {
    const { port } = portWith();
    const kinds: string[] = [];
    port.subscribe((change) => kinds.push(`${change.kind}:${port.listLocks().length}`));
    port.applyChange({ kind: 'locks_changed' }, undefined, [FRONT]);
    expect(port.listLocks().map((lock) => lock.id)).toEqual(['front']);
    port.applyChange({ kind: 'battery', lockId: 'front', level: 0.5 }, null);
    expect(port.getLock('front')).toBeUndefined();
    expect(kinds).toEqual(['locks_changed:1', 'battery:0']);
  });

  it('keeps delivering to the other listeners when one throws, and logs it', () => {
    const { port, logger } = portWith();
    const received: string[] = [];
    port.subscribe(() => {
      throw new Error('listener broke');
    });
    const unsubscribe = port.subscribe((change) => received.push(change.kind));
    port.applyChange({ kind: 'battery', lockId: 'front', level: 0.5 });
    unsubscribe();
    port.applyChange({ kind: 'battery', lockId: 'front', level: 0.4 });
    expect(received).toEqual(['battery']);
    expect(logger.text()).toContain('listener broke');
  });

  it('resolves the watched users case-insensitively; an e-mail it does not watch is null', () => {
    const { port } = portWith();
    expect(port.resolveUser(' OLIVIA@example.com ')).toEqual(OLIVIA);
    expect(port.resolveUser('nobody@example.com')).toBeNull();
    expect(port.resolveUser('stranger@example.com')).toBeNull();
    port.applyUsers({ 'nobody@example.com': { id: 'u-new', name: 'New', email: 'nobody@example.com' } });
    expect(port.resolveUser('nobody@example.com')?.id).toBe('u-new');
  });

  it('passes requestBolt to the worker and answers unavailable when the call fails, never rejecting', async () => {
    const calls: string[] = [];
    const { port } = portWith((lockId, type, asUserId) => {
      calls.push(`${lockId}:${type}:${asUserId}`);
      return calls.length === 1 ? Promise.resolve({ status: 'completed', bolt: 'unlocked', commandId: 'c1' }) : Promise.reject(new Error('thread gone'));
    });
    await expect(port.requestBolt('front', 'unlocked', 'u-olivia')).resolves.toEqual({ status: 'completed', bolt: 'unlocked', commandId: 'c1' });
    await expect(port.requestBolt('front', 'locked', 'u-olivia')).resolves.toEqual({ status: 'rejected', reason: 'unavailable' });
    expect(calls).toEqual(['front:unlock:u-olivia', 'front:lock:u-olivia']);
  });

  it('once the worker is gone: online locks go offline (one change each), commands answer unavailable, later changes are ignored', async () => {
    let asked = 0;
    const { port } = portWith(() => {
      asked += 1;
      return Promise.resolve<CommandResult>({ status: 'completed', bolt: 'locked', commandId: 'c' });
    });
    const changes: LockChange[] = [];
    port.subscribe((change) => changes.push(change));
    port.markGone();
    port.markGone();
    expect(changes).toEqual([{ kind: 'connectivity', lockId: 'front', online: false }]);
    expect(port.getLock('front')?.online).toBe(false);
    await expect(port.requestBolt('front', 'locked', 'u-olivia')).resolves.toEqual({ status: 'rejected', reason: 'unavailable' });
    expect(asked).toBe(0);
    port.applyChange({ kind: 'connectivity', lockId: 'front', online: true }, { ...FRONT, online: true });
    expect(port.getLock('front')?.online).toBe(false);
    expect(changes).toHaveLength(1);
  });
});
