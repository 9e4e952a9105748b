/**
 * The door-code sync engine against the fake BlueZ (a real dbus-daemon, docs/design.md §4c): a link
 * that drops in the middle of writing a code never makes it `set` before the lock confirmed, and
 * the write is finished on reconnect; a link that drops in the middle of removing one keeps it
 * `removing`; a full keypad and a code the lock refuses end in `failed` with the reason; a key
 * revoked while the lock is out of reach, with a restart of the service before the lock comes
 * back, has its code taken off at the next connect (the intent is persisted) and it never works
 * again; the lock's clock is set when it is off. Codes never appear in a log line.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NukiCommand } from '../../../src/families/nuki/protocol/nuki-commands.js';
import { DoorCodeBluezRig } from '../../support/door-code-bluez-rig.js';
import { startFakeBluezEnvironment, type FakeBluezEnvironment } from '../../support/fake-bluez/fake-bluez-environment.js';

let environment: FakeBluezEnvironment;
let folder: string;
let rigs = 0;
const running: DoorCodeBluezRig[] = [];

beforeAll(async () => {
  environment = await startFakeBluezEnvironment({ advertisementIntervalMs: 100 });
  folder = mkdtempSync(join(tmpdir(), 'ekey-door-codes-bluez-'));
});

afterEach(async () => {
  for (const rig of running.splice(0)) {
    // No code of any state ever went into a log line.
    for (const row of rig.current.doorCodes.listOpenByLock(rig.lockId)) {
      if (row.code !== null) for (const line of rig.logLines) expect(line.message).not.toContain(row.code);
    }
    await rig.stop();
  }
});

afterAll(async () => {
  await environment.stop();
  rmSync(folder, { recursive: true, force: true });
});

async function newRig(options: ConstructorParameters<typeof DoorCodeBluezRig>[2] = {}): Promise<DoorCodeBluezRig> {
  const rig = new DoorCodeBluezRig(environment, join(folder, `store-${++rigs}.sqlite`), options);
  running.push(rig);
  await rig.start();
  return rig;
}

/**
 * The first write of `command` reaches the lock (which applies it), then the link drops and the
 * lock's answer is lost with it: the service cannot know whether the lock took it.
 */
function dropAfterFirst(rig: DoorCodeBluezRig, command: number): { dropped: () => boolean } {
  let dropped = false;
  rig.current.wire.beforeWrite = (message) => {
    const now = !dropped && message.command === command;
    if (now) dropped = true;
    rig.device.faults.disconnectAfterWrite = now;
    rig.device.faults.dropNotifications = now;
  };
  return { dropped: () => dropped };
}

describe('door codes over the fake BlueZ', () => {
  it('a link lost in the middle of writing a code: not `set` until the lock confirmed, finished on reconnect', async () => {
    const rig = await newRig();
    const drop = dropAfterFirst(rig, NukiCommand.addKeypadCode);
    const states = rig.recordStates();
    const key = rig.giveKey();
    const code = rig.doorCodeOf(key.id)?.code ?? '';
    expect(code).toMatch(/^[1-9]{6}$/);
    // The lock took the write but never said so: the service did not claim it; the lock coming
    // back (its next advertisement or connect) finds the code on it under our name and confirms it.
    await rig.until(() => rig.doorCodeOf(key.id)?.state === 'set', 'the code set after the reconnect');
    expect(drop.dropped()).toBe(true);
    expect(states.filter((entry) => entry.ekeyId === key.id).map((entry) => [entry.state, entry.failureReason])).toEqual([
      ['setting', null],
      ['failed', 'link_lost'],
      ['set', null],
    ]);
    expect(rig.doorCodeOf(key.id)).toMatchObject({ code, state: 'set', failure_reason: null });
    expect(rig.codesOnLock().filter((digits) => digits === code)).toHaveLength(1);
    expect(rig.nuki.typeCode(code, 'unlock')).toBe('accepted');
  }, 60_000);

  it('a link lost in the middle of removing a code: `removing` until the lock confirmed, then removed', async () => {
    const rig = await newRig();
    const key = rig.giveKey();
    await rig.until(() => rig.doorCodeOf(key.id)?.state === 'set', 'the code set');
    const code = rig.doorCodeOf(key.id)?.code ?? '';
    const drop = dropAfterFirst(rig, NukiCommand.removeKeypadCode);
    rig.revoke(key.id);
    expect(rig.doorCodeOf(key.id)?.state).toBe('removing');
    await rig.until(() => drop.dropped(), 'the removal written');
    // Whatever the lock did with it, the service says `removed` only once the lock confirmed.
    if (rig.codesOnLock().includes(code)) expect(rig.doorCodeOf(key.id)?.state).toBe('removing');
    await rig.until(() => rig.doorCodeOf(key.id)?.state === 'removed', 'the code removed after the reconnect');
    expect(rig.codesOnLock()).not.toContain(code);
    expect(rig.nuki.typeCode(code, 'unlock')).toBe('refused');
  }, 60_000);

  it('a full keypad: `failed` with keypad_full; the codes of the vendor app stay', async () => {
    const rig = await newRig({ keypadCapacity: 2 });
    rig.nuki.addVendorCode('345678');
    rig.nuki.addVendorCode('456789');
    const key = rig.giveKey();
    await rig.until(() => rig.doorCodeOf(key.id)?.state !== 'setting', 'the write ended');
    expect(rig.doorCodeOf(key.id)).toMatchObject({ state: 'failed', failure_reason: 'keypad_full' });
    expect(rig.codesOnLock().sort()).toEqual(['345678', '456789']);
  }, 60_000);

  it('a code the lock refuses: `failed` with refused_by_lock, nothing on the lock, the other codes set', async () => {
    const rig = await newRig();
    const good = rig.giveKey();
    await rig.until(() => rig.doorCodeOf(good.id)?.state === 'set', 'the first code set');
    // Digits the keypad's own rules refuse (starting with 12), as if our generator had let them through.
    const refused = rig.giveKey();
    const row = rig.current.doorCodes.currentFor(refused.id);
    if (row === undefined) throw new Error('no row');
    rig.current.doorCodes.update({ ...row, code: '123456' });
    await rig.until(() => rig.doorCodeOf(refused.id)?.state !== 'setting', 'the write ended');
    expect(rig.doorCodeOf(refused.id)).toMatchObject({ code: '123456', state: 'failed', failure_reason: 'refused_by_lock' });
    expect(rig.codesOnLock()).not.toContain('123456');
    expect(rig.codesOnLock()).toContain(rig.doorCodeOf(good.id)?.code);
    expect(rig.doorCodeOf(good.id)?.state).toBe('set');
  }, 60_000);

  it('revoked while the lock is out of reach, restarted before it comes back: removed at the next connect, never working again', async () => {
    const rig = await newRig();
    const key = rig.giveKey();
    await rig.until(() => rig.doorCodeOf(key.id)?.state === 'set', 'the code set');
    const code = rig.doorCodeOf(key.id)?.code ?? '';
    expect(rig.nuki.typeCode(code, 'unlock')).toBe('accepted');

    rig.nuki.goOutOfRange();
    rig.revoke(key.id);
    await rig.current.sync.settled();
    // docs/design.md §4c: while it is being removed, nobody sees the digits (the row still holds them).
    expect(rig.doorCodeOf(key.id)).toMatchObject({ code: null, state: 'removing' });
    expect(rig.current.doorCodes.currentFor(key.id)?.code).toBe(code);
    // The lock still holds it: it is not ours to claim otherwise.
    expect(rig.codesOnLock()).toContain(code);

    await rig.restart();
    expect(rig.doorCodeOf(key.id)).toMatchObject({ code: null, state: 'removing' });
    expect(rig.current.doorCodes.currentFor(key.id)?.state).toBe('removing');

    rig.nuki.comeBackInRange();
    await rig.until(() => rig.doorCodeOf(key.id)?.state === 'removed', 'the code removed after the restart');
    expect(rig.doorCodeOf(key.id)).toMatchObject({ code: null, state: 'removed' });
    expect(rig.codesOnLock()).not.toContain(code);
    expect(rig.nuki.typeCode(code, 'unlock')).toBe('refused');
  }, 60_000);

  it('keeps the lock’s clock right: a clock off by more than 60 s is set at the next connect', async () => {
    const rig = await newRig();
    rig.nuki.setClockOffset(-3_600);
    expect(rig.nuki.lockNow() - rig.clock.now()).toBe(-3_600_000);
    // Any connect (here: writing a code) reads the lock's clock and sets it.
    const key = rig.giveKey();
    await rig.until(() => rig.doorCodeOf(key.id)?.state === 'set', 'the code set');
    await rig.until(() => Math.abs(rig.nuki.lockNow() - rig.clock.now()) < 60_000, 'the clock set');
    expect(rig.current.wire.commandNames).toContain('Update Time');
    expect(rig.logLines.filter((line) => line.message.includes('clock was off')).map((line) => line.message)).toEqual([expect.stringMatching(/^Lock Back Door: its clock was off by -3\d{3} s; set it\.$/)]);
  }, 60_000);
});
