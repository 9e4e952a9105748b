import { afterEach, describe, expect, it } from '@jest/globals';
import { encodeControlRequest } from '../../../../src/families/ekey/protocol/control-frame-codec.js';
import {
  NO_CREDENTIAL_UUID,
  decodeCredentialRequest,
  decodeCredentialResponse,
  encodeCredentialRequest,
  type CredentialRequest,
  type CredentialResponse,
} from '../../../../src/families/ekey/protocol/credential-frame-codec.js';
import { LockGateway } from '../../../../src/gateway/lock-gateway.js';
import { LockUuids } from '../../../../src/families/ekey/protocol/lock-profile.js';
import { EKeyDriver } from '../../../../src/families/ekey/driver/ekey-driver.js';
import type { AdvertisementListener, ConnectOptions, GattConnection, GattProfile, GattTransport } from '../../../../src/gateway/gatt-transport.js';
import { SimulatedLock, type SimulatedLockLink } from '../../../../src/families/ekey/simulator/simulated-lock.js';
import { SimulatorTransport } from '../../../../src/gateway/transports/simulator/simulator-transport.js';
import { testLogger } from '../../../support/fake-bluez/test-logger.js';
import { ManualClock } from '../../../support/manual-clock.js';
import { until } from '../../../support/polling.js';

const KEY_HEX = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';
const KEY = Buffer.from(KEY_HEX, 'hex');
const LOCK_ID = '6f1c2a8e-0000-4000-8000-000000000001';
const ADDRESS = 'AA:BB:CC:DD:EE:01';
const ALEX = '0b6e8c2a-5d1f-4c3e-9a7b-1234567890ab';
const SAM = '1c7f9d3b-6e20-4d4f-8b8c-234567890abc';
const HOUR = 3_600_000;

async function flush(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}

function lockWithLink(options: { enforceCredentials?: boolean; credentialCapacity?: number } = {}): {
  lock: SimulatedLock;
  clock: ManualClock;
  link: SimulatedLockLink;
  answers: CredentialResponse[];
  write: (request: Omit<CredentialRequest, 'requestId'>) => Buffer;
} {
  const clock = new ManualClock();
  const lock = new SimulatedLock({ address: ADDRESS, key: KEY, name: 'Sim', clock, motorTimeMs: 0, ...options });
  const link = lock.openLink();
  const answers: CredentialResponse[] = [];
  link.onNotification((uuid, value) => {
    if (uuid !== LockUuids.credentials) return;
    const decoded = decodeCredentialResponse(value, KEY);
    if (!decoded.ok) throw new Error(decoded.reason);
    answers.push(decoded.value);
  });
  const write = (request: Omit<CredentialRequest, 'requestId'>): Buffer => {
    const frame = encodeCredentialRequest({ ...request, requestId: 1 }, KEY);
    link.write(LockUuids.credentials, frame);
    return frame;
  };
  return { lock, clock, link, answers, write };
}

describe('SimulatedLock credential allow-list', () => {
  it('accepts any tap until the first authenticated Credentials request, then only listed, unexpired credentials', async () => {
    const { lock, clock, answers, write } = lockWithLink();
    expect(lock.checksCredentials).toBe(false);
    expect(lock.tap(SAM, 'unlock')).toBe('accepted');
    await lock.idle();
    write({ opcode: 'clear', counter: 10n, credential: NO_CREDENTIAL_UUID, validUntil: 0 });
    write({ opcode: 'allow', counter: 11n, credential: ALEX.toUpperCase(), validUntil: clock.now() + HOUR });
    await flush();
    expect(answers.map((a) => [a.result, a.listSize])).toEqual([
      ['ok', 0],
      ['ok', 1],
    ]);
    expect(lock.checksCredentials).toBe(true);
    expect([...lock.allowedCredentials]).toEqual([[ALEX, clock.now() + HOUR]]);

    const before = lock.activity.length;
    expect(lock.tap(SAM, 'lock')).toBe('refused');
    expect(lock.bolt).toBe('unlocked');
    expect(lock.activity.length).toBe(before);

    expect(lock.tap(ALEX, 'lock')).toBe('accepted');
    await lock.idle();
    expect(lock.bolt).toBe('locked');
    expect(lock.activity.at(-1)).toMatchObject({ source: 'tap', credential: ALEX, action: 'lock' });

    // The lock drops the credential by its own clock at valid_until.
    clock.advance(HOUR);
    expect(lock.tap(ALEX, 'unlock')).toBe('refused');
    expect(lock.bolt).toBe('locked');
    expect(lock.allowedCredentials.size).toBe(0);
  });

  it('revoke removes a credential at once; an unknown one is ok', async () => {
    const { lock, clock, answers, write } = lockWithLink({ enforceCredentials: true });
    expect(lock.tap(ALEX, 'unlock')).toBe('refused');
    write({ opcode: 'allow', counter: 1n, credential: ALEX, validUntil: clock.now() + HOUR });
    expect(lock.tap(ALEX, 'unlock')).toBe('accepted');
    await lock.idle();
    write({ opcode: 'revoke', counter: 2n, credential: ALEX, validUntil: 0 });
    write({ opcode: 'revoke', counter: 3n, credential: SAM, validUntil: 0 });
    expect(lock.tap(ALEX, 'lock')).toBe('refused');
    expect(lock.bolt).toBe('unlocked');
    await flush();
    expect(answers.map((a) => a.result)).toEqual(['ok', 'ok', 'ok']);
  });

  it('refuses a replayed frame, a frame under another key, a Control Point counter reuse, and a full list', async () => {
    const { lock, clock, link, answers, write } = lockWithLink({ credentialCapacity: 1 });
    const captured = write({ opcode: 'allow', counter: 5n, credential: ALEX, validUntil: clock.now() + HOUR });
    write({ opcode: 'revoke', counter: 6n, credential: ALEX, validUntil: 0 });
    link.write(LockUuids.credentials, captured); // the attacker replays the allow
    link.write(LockUuids.credentials, encodeCredentialRequest({ opcode: 'allow', requestId: 2, counter: 99n, credential: SAM, validUntil: clock.now() + HOUR }, Buffer.alloc(32, 1)));
    // One counter space with the Control Point: 6 is used already.
    link.write(LockUuids.controlPoint, encodeControlRequest({ opcode: 'unlock', requestId: 3, counter: 6n }, KEY));
    write({ opcode: 'allow', counter: 7n, credential: SAM, validUntil: clock.now() + HOUR });
    write({ opcode: 'allow', counter: 8n, credential: ALEX, validUntil: clock.now() + HOUR });
    await flush();
    expect(answers.map((a) => a.result)).toEqual(['ok', 'ok', 'stale_counter', 'bad_tag', 'ok', 'list_full']);
    expect(answers[2]?.highestCounter).toBe(6n);
    expect(lock.tap(ALEX, 'unlock')).toBe('refused');
    expect(lock.tap(SAM, 'unlock')).toBe('accepted');
    expect(lock.bolt).toBe('moving');
    await lock.idle();
  });

  it('answers a truncated frame with an ATT error and a malformed one with `malformed`', async () => {
    const { clock, link, answers } = lockWithLink();
    expect(() => {
      link.write(LockUuids.credentials, Buffer.alloc(10));
    }).toThrow('too short');
    const frame = encodeCredentialRequest({ opcode: 'allow', requestId: 1, counter: 1n, credential: ALEX, validUntil: clock.now() + HOUR }, KEY);
    link.write(LockUuids.credentials, frame.subarray(0, 40));
    await flush();
    expect(answers.map((a) => a.result)).toEqual(['malformed']);
  });
});

/** Records every Credentials request the gateway writes, decoded, then hands it to the lock. */
class RecordingTransport implements GattTransport {
  readonly kind = 'simulator' as const;
  readonly requests: CredentialRequest[] = [];
  readonly writes: string[] = [];
  constructor(private readonly inner: SimulatorTransport) {}

  async connect(address: string, profile: GattProfile, options: ConnectOptions): Promise<GattConnection> {
    const connection = await this.inner.connect(address, profile, options);
    const write = connection.write.bind(connection);
    return Object.assign(connection, {
      write: (characteristic: string, value: Buffer): Promise<void> => {
        this.writes.push(characteristic);
        if (characteristic === 'credentials') {
          const decoded = decodeCredentialRequest(value, KEY);
          if (decoded.ok) this.requests.push(decoded.value);
        }
        return write(characteristic, value);
      },
    });
  }

  watchAdvertisements(listener: AdvertisementListener): () => void {
    return this.inner.watchAdvertisements(listener);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

const gateways: LockGateway[] = [];
afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.stop();
});

function gatewayRig(): { clock: ManualClock; lock: SimulatedLock; transport: RecordingTransport; gateway: LockGateway } {
  const clock = new ManualClock();
  const lock = new SimulatedLock({ address: ADDRESS, key: KEY, name: 'Front door', clock });
  const transport = new RecordingTransport(new SimulatorTransport([lock]));
  const gateway = new LockGateway(transport, clock, testLogger(), { connectTimeoutMs: 2000, operationTimeoutMs: 2000, reconnectBackoff: { initialMs: 5, maxMs: 20 } });
  gateway.addLock({ id: LOCK_ID, address: ADDRESS, name: 'Front door', driver: new EKeyDriver(KEY_HEX) });
  gateways.push(gateway);
  return { clock, lock, transport, gateway };
}

const ops = (requests: CredentialRequest[]): string[] => requests.map((r) => (r.opcode === 'clear' ? 'clear' : `${r.opcode} ${r.credential.slice(0, 4)}`));

describe('LockGateway.setCredentials', () => {
  it('leaves the list alone until it is given one; then full resync on connect, diffs afterwards, each answered', async () => {
    const { clock, lock, transport, gateway } = gatewayRig();
    gateway.start();
    await gateway.credentialsSettled(LOCK_ID);
    expect(transport.requests).toEqual([]);
    expect(lock.checksCredentials).toBe(false);

    const until = clock.now() + HOUR;
    await gateway.setCredentials(LOCK_ID, [{ credential: ALEX, validUntil: until }]);
    // Connected, but nothing was ever written: the first push is a full resync.
    expect(ops(transport.requests)).toEqual(['clear', 'allow 0b6e']);
    expect([...lock.allowedCredentials]).toEqual([[ALEX, until]]);

    await gateway.setCredentials(LOCK_ID, [{ credential: ALEX, validUntil: until }, { credential: SAM, validUntil: until }]);
    await gateway.setCredentials(LOCK_ID, [{ credential: SAM, validUntil: until }]);
    await gateway.setCredentials(LOCK_ID, [{ credential: SAM, validUntil: until }]); // no change: nothing written
    await gateway.setCredentials(LOCK_ID, [{ credential: SAM.toUpperCase(), validUntil: until + 1000 }]); // expiry moved
    expect(ops(transport.requests)).toEqual(['clear', 'allow 0b6e', 'allow 1c7f', 'revoke 0b6e', 'allow 1c7f']);
    expect([...lock.allowedCredentials]).toEqual([[SAM, until + 1000]]);
    const counters = transport.requests.map((r) => r.counter);
    expect([...counters].sort((a, b) => (a < b ? -1 : 1))).toEqual(counters);
  });

  it('queues credential writes with commands on the one link: a command between pushes still completes', async () => {
    const { clock, lock, transport, gateway } = gatewayRig();
    gateway.start();
    await gateway.credentialsSettled(LOCK_ID);
    const first = gateway.setCredentials(LOCK_ID, [{ credential: ALEX, validUntil: clock.now() + HOUR }]);
    const command = gateway.sendCommand(LOCK_ID, 'unlock');
    const second = gateway.setCredentials(LOCK_ID, []);
    expect(await command).toEqual({ status: 'completed', bolt: 'unlocked' });
    await Promise.all([first, second]);
    // Pushes write the latest set: the first push (a full resync) already sees the empty set, so
    // it writes `clear` only; the command runs after it; the second push finds nothing to change.
    expect(transport.writes.filter((w) => w !== 'activity')).toEqual(['credentials', 'controlPoint']);
    expect(ops(transport.requests)).toEqual(['clear']);
    expect(lock.allowedCredentials.size).toBe(0);
    expect(lock.tap(ALEX, 'lock')).toBe('refused');
  });

  it('while the lock is away it keeps its old list; on reconnect the gateway writes the whole list before reading the backlog', async () => {
    const { clock, lock, transport, gateway } = gatewayRig();
    gateway.start();
    await gateway.setCredentials(LOCK_ID, [{ credential: ALEX, validUntil: clock.now() + HOUR }]);
    lock.goOutOfRange();
    await new Promise((resolve) => setImmediate(resolve));
    await gateway.setCredentials(LOCK_ID, []); // revoked while away: cannot reach the lock, never throws
    expect(lock.tap(ALEX, 'unlock')).toBe('accepted'); // the lock still has its last list
    await lock.idle();
    transport.writes.length = 0;
    transport.requests.length = 0;
    lock.comeBackInRange();
    await until(() => gateway.getSnapshot(LOCK_ID)?.connected === true, 'the reconnect');
    await gateway.credentialsSettled(LOCK_ID);
    expect(ops(transport.requests)).toEqual(['clear']);
    expect(transport.writes).toEqual(['credentials', 'activity']);
    expect(lock.tap(ALEX, 'lock')).toBe('refused');
  });

  it('a refused push is logged, not thrown, and the next push starts over with a full resync', async () => {
    const { clock, lock, transport, gateway } = gatewayRig();
    gateway.start();
    await gateway.credentialsSettled(LOCK_ID);
    // Fill the lock's list behind the gateway's back so `allow` answers list_full.
    const link = lock.openLink();
    for (let i = 0; i < 256; i += 1) {
      const credential = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
      link.write(LockUuids.credentials, encodeCredentialRequest({ opcode: 'allow', requestId: i, counter: BigInt(i + 1), credential, validUntil: clock.now() + HOUR }, KEY));
    }
    link.close();
    await gateway.setCredentials(LOCK_ID, [{ credential: ALEX, validUntil: clock.now() + HOUR }]);
    expect(ops(transport.requests)).toEqual(['clear', 'allow 0b6e']); // the clear emptied it first: works
    // Behind the gateway's back again, with counters ahead of its own: the next allow meets
    // stale_counter (adopted, retried once) and then list_full.
    const again = lock.openLink();
    for (let i = 0; i < 255; i += 1) {
      const credential = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
      again.write(LockUuids.credentials, encodeCredentialRequest({ opcode: 'allow', requestId: i, counter: BigInt(clock.now()) + 10_000n + BigInt(i), credential, validUntil: clock.now() + HOUR }, KEY));
    }
    again.close();
    transport.requests.length = 0;
    await gateway.setCredentials(LOCK_ID, [{ credential: ALEX, validUntil: clock.now() + HOUR }, { credential: SAM, validUntil: clock.now() + HOUR }]);
    expect(ops(transport.requests)).toEqual(['allow 1c7f', 'allow 1c7f']); // stale_counter once, then list_full
    transport.requests.length = 0;
    await gateway.setCredentials(LOCK_ID, [{ credential: SAM, validUntil: clock.now() + HOUR }]);
    expect(ops(transport.requests)).toEqual(['clear', 'allow 1c7f']);
    expect([...lock.allowedCredentials.keys()]).toEqual([SAM]);
  });
});
