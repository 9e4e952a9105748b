import { describeError } from '../../../domain/errors.js';

/** The one notification listener of a connection. */
export type ConnectionNotificationListener = (characteristic: string, value: Buffer) => void;

/**
 * Values kept for a notification listener not set yet, at most. A caller sets its listener as
 * soon as `connect()` resolves, so only a caller that never sets one (a probe that connects and
 * disconnects) could fill it; past this, the oldest values go first.
 */
const MAX_KEPT_VALUES = 256;

/**
 * The listeners of one GattConnection, as the contract promises them to the caller
 * (src/gateway/gatt-transport.ts), for every transport alike:
 *
 * - a value that arrives before `onNotification` is set is kept and delivered once it is: a
 *   connection is handed over between `connect()` resolving and the caller setting its
 *   listeners, and a device may answer its subscription at once;
 * - a drop that comes before `onDisconnect` is set is reported once it is set;
 * - a drop is reported once, and nothing at all after the owner's `disconnect()`.
 *
 * What was kept is delivered on a microtask after the listener is set, never inside the call
 * that sets it: the caller may still be recording the connection as its own
 * (src/gateway/lock-link.ts sets both listeners before it does). A listener's throw is reported,
 * never passed into the transport's I/O callbacks.
 */
export class ConnectionListeners {
  private notificationListener: ConnectionNotificationListener | undefined;
  private disconnectListener: (() => void) | undefined;
  private readonly kept: [string, Buffer][] = [];
  private keptDeliveryScheduled = false;
  private state: 'open' | 'dropped' | 'drop_reported' | 'closed' = 'open';

  constructor(
    /** Where a throwing listener is reported (the transport's logger). */
    private readonly listenerFailed: (message: string) => void,
  ) {}

  /** `GattConnection.onNotification`: values kept until now follow on a microtask. */
  setNotificationListener(listener: ConnectionNotificationListener): void {
    if (this.state === 'closed') return;
    this.notificationListener = listener;
    if (this.kept.length > 0) this.scheduleKeptDelivery();
  }

  /** `GattConnection.onDisconnect`: a drop that already happened is reported on a microtask. */
  setDisconnectListener(listener: () => void): void {
    if (this.state === 'closed') return;
    this.disconnectListener = listener;
    if (this.state === 'dropped') {
      queueMicrotask(() => {
        this.reportDrop();
      });
    }
  }

  /** A notification or indication arrived from the device. */
  value(characteristic: string, value: Buffer): void {
    if (this.state !== 'open') return;
    const listener = this.notificationListener;
    // Behind values still kept, so the listener sees them in the order they came.
    if (listener === undefined || this.kept.length > 0) {
      this.keep(characteristic, value);
      return;
    }
    this.call('Notification', () => {
      listener(characteristic, value);
    });
  }

  /** The link dropped (the device, the radio or the bus). Reported once; ignored after `closed()`. */
  dropped(): void {
    if (this.state !== 'open') return;
    this.state = 'dropped';
    if (this.disconnectListener === undefined) return;
    // Values that came before the drop are delivered before it is reported.
    if (this.keptDeliveryScheduled) {
      queueMicrotask(() => {
        this.reportDrop();
      });
    } else {
      this.reportDrop();
    }
  }

  /** The owner called `disconnect()`: nothing more is delivered or reported. */
  closed(): void {
    this.state = 'closed';
    this.kept.length = 0;
    this.notificationListener = undefined;
    this.disconnectListener = undefined;
  }

  private keep(characteristic: string, value: Buffer): void {
    this.kept.push([characteristic, value]);
    if (this.kept.length > MAX_KEPT_VALUES) this.kept.shift();
  }

  private scheduleKeptDelivery(): void {
    if (this.keptDeliveryScheduled) return;
    this.keptDeliveryScheduled = true;
    queueMicrotask(() => {
      this.keptDeliveryScheduled = false;
      // Values arriving while these are delivered queue behind them (see value()).
      for (let next = this.kept.shift(); next !== undefined; next = this.kept.shift()) {
        const listener = this.notificationListener;
        if (listener === undefined) return;
        const [characteristic, value] = next;
        this.call('Notification', () => {
          listener(characteristic, value);
        });
      }
    });
  }

  private reportDrop(): void {
    const listener = this.disconnectListener;
    if (this.state !== 'dropped' || listener === undefined) return;
    this.state = 'drop_reported';
    this.call('Disconnect', listener);
  }

  private call(which: string, work: () => void): void {
    try {
      work();
    } catch (error) {
      this.listenerFailed(`${which} listener failed: ${describeError(error)}`);
    }
  }
}
