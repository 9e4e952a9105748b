import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { DemoControlHandler } from '../../../src/homebridge/demo-control-channel.js';
import type { PortLock, PortUser, LockChange } from '../../../src/lock-port/lock-port.js';
import { ServiceClient } from '../../../src/worker/service-client.js';
import { hostService, WATCHED_USERS_REFRESH_MS } from '../../../src/worker/service-host.js';
import type { WorkerServiceOptions } from '../../../src/worker/service-protocol.js';
import { InMemoryLockPort, InMemoryService, testLock } from '../../support/in-memory-lock-port.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { failOnUnhandledRejections } from '../../support/unhandled-rejections.js';
import { until } from '../../support/polling.js';

/*
 * The thread protocol in one process: the worker's side (hostService) on one end of a
 * MessageChannel, the main thread's side (ServiceClient and its RemoteLockPort) on the other, with
 * the in-memory service behind. The same code runs across a real Worker (see
 * test/integration/worker/service-worker.test.ts and the HomeKit e2e).
 */

const FRONT = testLock({ id: 'front', name: 'Front Door' });
const GATE = testLock({ id: 'gate', name: 'Garden Gate' });
const OLIVIA: PortUser = { id: 'u-olivia', name: 'Olivia', email: 'olivia@example.com' };

class ServiceWithControl extends InMemoryService {
  lines: string[] = [];
  demoControl(): DemoControlHandler {
    return (line) => {
      this.lines.push(line);
      if (line === 'fail') return Promise.reject(new Error('bad line'));
      return Promise.resolve('{"ok":true}');
    };
  }
}

const OPTIONS: WorkerServiceOptions = { config: { demo: true, homekit: { user_email: 'Olivia@Example.com', arrival_triggers: ['late@example.com'] } }, dataDir: '/unused', demo: true };

/** Waits for something to happen; the budget is for it to happen at all, not a speed claim. */
describe('the service thread protocol (host ↔ client over a MessageChannel)', () => {
  let channel: MessageChannel;
  let lockPort: InMemoryLockPort;
  let service: ServiceWithControl;
  let logger: RecordingLogger;
  let client: ServiceClient;

  beforeEach(() => {
    channel = new MessageChannel();
    lockPort = new InMemoryLockPort([FRONT, GATE], [OLIVIA]);
    service = new ServiceWithControl(lockPort);
    logger = new RecordingLogger();
    client = new ServiceClient(channel.port1, logger);
  });

  afterEach(async () => {
    // Both ends say when the channel is down: no late message (nor a rejection it causes) can follow.
    const closed = Promise.all(
      [channel.port1, channel.port2].map(
        (end) =>
          new Promise<void>((resolve) => {
            end.once('close', () => {
              resolve();
            });
          }),
      ),
    );
    channel.port1.close();
    channel.port2.close();
    await closed;
  });
  failOnUnhandledRejections();

  /** A demo control line to the worker and its answer back (messages on a port keep their order). */
  async function roundTrip(): Promise<void> {
    const control = client.demoControl();
    if (!control) throw new Error('no demo control');
    await expect(control('{"op":"battery"}')).resolves.toBe('{"ok":true}');
  }

  async function open(port: MessagePort = channel.port2): Promise<void> {
    await hostService(port, OPTIONS, (options) => {
      options.logger.info('opened in the worker');
      return Promise.resolve(service);
    });
    await client.whenOpened();
  }

  it('opens, forwards the worker’s log lines, and answers listen with the snapshot and the watched users', async () => {
    await open();
    expect(await client.listen(0, '127.0.0.1')).toBe('http://127.0.0.1:0');
    expect(logger.lines).toContainEqual({ level: 'info', message: 'opened in the worker' });
    const port = client.lockPort();
    expect(port.listLocks()).toEqual([FRONT, GATE]);
    expect(port.resolveUser('olivia@example.com')).toEqual(OLIVIA);
    expect(port.resolveUser('late@example.com')).toBeNull();
    expect(client.demoControl()).toBeDefined();
  });

  it('delivers the service’s changes in order, each with the mirror already updated', async () => {
    await open();
    await client.listen(0, '127.0.0.1');
    const port = client.lockPort();
    const seen: string[] = [];
    port.subscribe((change) => {
      if (change.kind === 'locks_changed') seen.push(`locks:${port.listLocks().length}`);
      else seen.push(`${change.kind}:${port.getLock(change.lockId)?.bolt ?? '-'}:${String(port.getLock(change.lockId)?.batteryLevel)}`);
    });
    lockPort.moveBolt('front', 'unlocked', 'tap');
    lockPort.setBattery('front', 0.2);
    lockPort.tap('gate', 'u-olivia', 'unlock');
    lockPort.addLock(testLock({ id: 'back', name: 'Back Door' }));
    await until(() => seen.length >= 5, 'five changes');
    // Nothing more on the way: a control line's answer comes after every change posted before it.
    await roundTrip();
    expect(seen).toEqual(['bolt:unlocked:0.9', 'battery:unlocked:0.2', 'bolt:unlocked:0.9', 'tap:unlocked:0.9', 'locks:3']);
    expect(port.getLock('front')).toMatchObject({ bolt: 'unlocked', lastActivitySource: 'tap', batteryLevel: 0.2 });
  });

  it('runs requestBolt in the worker; the bolt change is in the mirror when the answer arrives', async () => {
    await open();
    await client.listen(0, '127.0.0.1');
    const port = client.lockPort();
    const result = await port.requestBolt('front', 'unlocked', 'u-olivia');
    expect(result).toMatchObject({ status: 'completed', bolt: 'unlocked' });
    expect(port.getLock('front')?.bolt).toBe('unlocked');
    expect(lockPort.requests).toEqual([{ lockId: 'front', target: 'unlocked', asUserId: 'u-olivia', type: 'unlock' }]);
  });

  it('answers unavailable for a command in flight when the worker goes away, and for later ones', async () => {
    await open();
    await client.listen(0, '127.0.0.1');
    const port = client.lockPort();
    lockPort.answerCommandsWith({ kind: 'hold' });
    const offline: LockChange[] = [];
    port.subscribe((change) => offline.push(change));
    const inFlight = port.requestBolt('front', 'locked', 'u-olivia');
    await until(() => lockPort.requests.length === 1, 'the request in the worker');
    client.gone('the thread exited');
    await expect(inFlight).resolves.toEqual({ status: 'rejected', reason: 'unavailable' });
    await expect(port.requestBolt('front', 'locked', 'u-olivia')).resolves.toEqual({ status: 'rejected', reason: 'unavailable' });
    expect(offline).toEqual([
      { kind: 'connectivity', lockId: 'front', online: false },
      { kind: 'connectivity', lockId: 'gate', online: false },
    ]);
    await expect(client.demoControl()?.('{}')).rejects.toThrow('the thread exited');
  });

  it('carries demo control lines to the worker; a failing line rejects (the control socket answers ok:false)', async () => {
    await open();
    await client.listen(0, '127.0.0.1');
    const control = client.demoControl();
    if (!control) throw new Error('no demo control');
    await expect(control('{"op":"battery"}')).resolves.toBe('{"ok":true}');
    await expect(control('fail')).rejects.toThrow('bad line');
    expect(service.lines).toEqual(['{"op":"battery"}', 'fail']);
  });

  it('a change that happens while the snapshot is read reaches the listeners after listen, and the mirror keeps it', async () => {
    const original = lockPort.listLocks.bind(lockPort);
    let first = true;
    lockPort.listLocks = (): PortLock[] => {
      const snapshot = original();
      if (first) {
        first = false;
        lockPort.moveBolt('front', 'unlocked', 'manual');
      }
      return snapshot;
    };
    await open();
    await client.listen(0, '127.0.0.1');
    const port = client.lockPort();
    // The snapshot predates the change …
    expect(port.getLock('front')?.bolt).toBe('locked');
    const seen: string[] = [];
    port.subscribe((change) => seen.push(change.kind));
    await until(() => seen.length >= 1, 'the change');
    await roundTrip(); // nothing more on the way
    // … which arrives after it, with the lock as it is now.
    expect(seen).toEqual(['bolt']);
    expect(port.getLock('front')).toMatchObject({ bolt: 'unlocked', lastActivitySource: 'manual' });
  });

  it('sends a watched user created after start-up to the main thread', async () => {
    await open();
    await client.listen(0, '127.0.0.1');
    (lockPort as unknown as { users: PortUser[] }).users.push({ id: 'u-late', name: 'Late', email: 'late@example.com' });
    // Sent with the next refresh (every WATCHED_USERS_REFRESH_MS): waited for, not slept for.
    await until(() => client.lockPort().resolveUser('LATE@example.com') !== null, 'the late user', WATCHED_USERS_REFRESH_MS + 10_000);
    expect(client.lockPort().resolveUser('LATE@example.com')?.id).toBe('u-late');
    await client.close();
    expect(service.closed).toBe(true);
  });

  it('reports a service that cannot open: whenOpened rejects with its error', async () => {
    await hostService(channel.port2, OPTIONS, () => Promise.reject(new Error('database is locked')));
    await expect(client.whenOpened()).rejects.toThrow('database is locked');
  });
});
