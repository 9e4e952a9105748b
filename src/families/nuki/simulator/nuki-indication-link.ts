import { GattOperationError, SimulatedLinkBase } from '../../../gateway/transports/simulator/simulated-device.js';

/** What a link needs from the device it belongs to. */
export interface NukiLinkHost {
  /** Handles one whole written value (a BLE long write arrives whole). @throws GattOperationError */
  handleWrite(link: NukiIndicationLink, characteristicUuid: string, value: Buffer): void;
  /** The link closed, from either side. */
  detach(link: NukiIndicationLink): void;
  /** Real-time delay before the next reply frame, ms (read when that frame is due). */
  replyDelayMs(): number;
}

type Outgoing = { kind: 'frame'; uuid: string; frame: Buffer } | { kind: 'drop' };

/**
 * One central's connection to a simulated Nuki. Reply frames are queued and delivered in order,
 * each after the write that caused it has returned, each cut into indications of at most
 * `fragmentSize` bytes (one listener call per indication), as a lock on a small MTU sends them.
 */
export class NukiIndicationLink extends SimulatedLinkBase {
  private readonly queue: Outgoing[] = [];
  private pumping = false;
  private readonly drainWaiters: (() => void)[] = [];

  constructor(
    private readonly host: NukiLinkHost,
    private readonly fragmentSize: number,
  ) {
    super();
  }

  read(characteristicUuid: string): Buffer {
    this.assertOpen();
    // §2: every Nuki characteristic is write + indicate; none is readable.
    throw new GattOperationError('not_supported', `characteristic ${characteristicUuid} is not readable`);
  }

  write(characteristicUuid: string, value: Buffer): void {
    this.assertOpen();
    this.host.handleWrite(this, characteristicUuid, value);
  }

  protected closed(): void {
    this.queue.length = 0;
    this.host.detach(this);
    this.resolveDrained();
  }

  /** Queues one reply frame for indication on `uuid`. */
  indicate(uuid: string, frame: Buffer): void {
    this.enqueue({ kind: 'frame', uuid, frame });
  }

  /** Drops the link once every reply queued before this call has been delivered. */
  dropAfterQueuedReplies(): void {
    this.enqueue({ kind: 'drop' });
  }

  /** Resolves once every queued reply has been delivered (or the link closed). */
  drained(): Promise<void> {
    if (!this.pumping) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private enqueue(item: Outgoing): void {
    if (!this.open) return;
    this.queue.push(item);
    if (!this.pumping) this.pump();
  }

  private pump(): void {
    if (this.queue.length === 0 || !this.open) {
      this.pumping = false;
      this.resolveDrained();
      return;
    }
    this.pumping = true;
    const deliverHead = (): void => {
      const item = this.queue.shift();
      try {
        if (item !== undefined && this.open) this.deliver(item);
      } finally {
        this.pump();
      }
    };
    const delay = this.host.replyDelayMs();
    // Zero delay: the next turn of the event loop (a 0 ms timer would wait about 1 ms).
    if (delay > 0) setTimeout(deliverHead, delay);
    else setImmediate(deliverHead);
  }

  private deliver(item: Outgoing): void {
    if (item.kind === 'drop') {
      this.lose();
      return;
    }
    for (let offset = 0; offset < item.frame.length; offset += this.fragmentSize) {
      if (!this.open) return;
      this.listener?.(item.uuid, Buffer.from(item.frame.subarray(offset, offset + this.fragmentSize)));
    }
  }

  private resolveDrained(): void {
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }
}
