import { describe, expect, it } from '@jest/globals';
import { ConnectionListeners } from '../../../src/gateway/transports/shared/connection-listeners.js';

/* The listener rules every transport's connections share (the contract suite checks them through each transport). */

const microtasks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function rig(): { listeners: ConnectionListeners; failures: string[]; events: string[] } {
  const failures: string[] = [];
  const events: string[] = [];
  const listeners = new ConnectionListeners((message) => failures.push(message));
  return { listeners, failures, events };
}

describe('ConnectionListeners', () => {
  it('delivers at once while a listener is set and nothing is kept', () => {
    const { listeners, events } = rig();
    listeners.setNotificationListener((name, value) => events.push(`${name}:${value.toString('hex')}`));
    listeners.value('status', Buffer.from([1]));
    expect(events).toEqual(['status:01']);
  });

  it('keeps values until a listener is set, then delivers them on a microtask, never inside the call that sets it', async () => {
    const { listeners, events } = rig();
    listeners.value('status', Buffer.from([1]));
    listeners.value('status', Buffer.from([2]));
    listeners.setNotificationListener((name, value) => events.push(`${name}:${value.toString('hex')}`));
    expect(events).toEqual([]);
    // A value that comes before the kept ones are out waits behind them.
    listeners.value('status', Buffer.from([3]));
    await microtasks();
    expect(events).toEqual(['status:01', 'status:02', 'status:03']);
  });

  it('keeps at most 256 values, dropping the oldest first', async () => {
    const { listeners, events } = rig();
    for (let index = 0; index < 300; index += 1) listeners.value('status', Buffer.from([index & 0xff]));
    listeners.setNotificationListener((_, value) => events.push(value.toString('hex')));
    await microtasks();
    expect(events).toHaveLength(256);
    expect(events[0]).toBe((300 - 256).toString(16).padStart(2, '0'));
  });

  it('reports a drop once, and one that came before the listener once it is set', async () => {
    const { listeners, events } = rig();
    listeners.dropped();
    listeners.dropped();
    listeners.setDisconnectListener(() => events.push('drop'));
    expect(events).toEqual([]);
    await microtasks();
    listeners.setDisconnectListener(() => events.push('second listener'));
    listeners.dropped();
    await microtasks();
    expect(events).toEqual(['drop']);
  });

  it('delivers values that came before a drop ahead of the drop', async () => {
    const { listeners, events } = rig();
    listeners.value('status', Buffer.from([1]));
    listeners.setDisconnectListener(() => events.push('drop'));
    listeners.setNotificationListener(() => events.push('value'));
    listeners.dropped();
    listeners.value('status', Buffer.from([2])); // after the drop: not from this link
    await microtasks();
    expect(events).toEqual(['value', 'drop']);
  });

  it('delivers and reports nothing after closed(), kept values included', async () => {
    const { listeners, events } = rig();
    listeners.value('status', Buffer.from([1]));
    listeners.setDisconnectListener(() => events.push('drop'));
    listeners.closed();
    listeners.setNotificationListener(() => events.push('value'));
    listeners.value('status', Buffer.from([2]));
    listeners.dropped();
    await microtasks();
    expect(events).toEqual([]);
  });

  it("reports a listener's throw and goes on delivering", async () => {
    const { listeners, failures, events } = rig();
    listeners.value('status', Buffer.from([1]));
    listeners.value('status', Buffer.from([2]));
    listeners.setNotificationListener((_, value) => {
      if (value[0] === 1) throw new Error('listener bug');
      events.push(value.toString('hex'));
    });
    listeners.setDisconnectListener(() => {
      throw new Error('another bug');
    });
    await microtasks();
    listeners.dropped();
    expect(events).toEqual(['02']);
    expect(failures).toEqual(['Notification listener failed: listener bug', 'Disconnect listener failed: another bug']);
  });
});
