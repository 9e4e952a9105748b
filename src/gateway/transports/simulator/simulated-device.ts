/**
 * What a simulated Bluetooth LE device offers to the two places that carry its bytes: the
 * in-process simulator transport and the fake BlueZ on a private D-Bus (tests). A device is
 * described by its GATT database and its advertisement; a central talks to it through a
 * {@link SimulatedLockLink}. Our own profile ({@link SimulatedLock}) and the Nuki Smart Lock
 * (`SimulatedNuki`) both implement it, so the transports need no per-family code.
 */

/** A GATT-level failure the device answers with instead of accepting a read or write. */
export class GattOperationError extends Error {
  constructor(
    /** Short reason, mapped by transports to their own error shape (e.g. org.bluez.Error.*). */
    readonly reason: 'not_connected' | 'not_supported' | 'invalid_length',
    message: string,
  ) {
    super(message);
    this.name = 'GattOperationError';
  }
}

/** Listener for notifications and indications: characteristic UUID and value. */
export type NotificationListener = (characteristicUuid: string, value: Buffer) => void;

/**
 * One open GATT connection to a simulated device: the byte-level view both transports use (the
 * simulator transport directly, the fake BlueZ behind D-Bus), so codecs are exercised the same
 * way whichever transport runs.
 */
export interface SimulatedLockLink {
  /** False once closed by either side or by the device going out of range. */
  readonly open: boolean;
  /** Reads a characteristic value. @throws GattOperationError */
  read(characteristicUuid: string): Buffer;
  /** Writes a characteristic value (acknowledged); answers arrive as notifications/indications. @throws GattOperationError */
  write(characteristicUuid: string, value: Buffer): void;
  /** Registers the notification listener (one per link; a link is one client). */
  onNotification(listener: NotificationListener): void;
  /** Called once when the link closes for a reason other than `close()`. */
  onLost(listener: () => void): void;
  /** Closes the link from the central's side. */
  close(): void;
}

/**
 * What every simulated link shares: open until closed by either side, one notification listener,
 * one lost listener. A device's link adds how it reads, writes and lets go ({@link closed}).
 */
export abstract class SimulatedLinkBase implements SimulatedLockLink {
  protected listener: NotificationListener | undefined;
  private lostListener: (() => void) | undefined;
  private isOpen = true;

  get open(): boolean {
    return this.isOpen;
  }

  abstract read(characteristicUuid: string): Buffer;
  abstract write(characteristicUuid: string, value: Buffer): void;

  onNotification(listener: NotificationListener): void {
    this.listener = listener;
  }

  onLost(listener: () => void): void {
    this.lostListener = listener;
  }

  close(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.listener = undefined;
    this.lostListener = undefined;
    this.closed();
  }

  /** The link is lost now (device out of range): it closes, then onLost fires. */
  lose(): void {
    if (!this.isOpen) return;
    const lost = this.lostListener;
    this.close();
    if (lost !== undefined) setImmediate(lost);
  }

  /** Called once when the link closes, from either side: the device lets go of it. */
  protected abstract closed(): void;

  protected assertOpen(): void {
    if (!this.isOpen) throw new GattOperationError('not_connected', 'link is closed');
  }
}

/** One GATT service as BlueZ would present it. */
export interface SimulatedGattService {
  /** Full lower-case 128-bit UUID. */
  uuid: string;
  /** Characteristics with BlueZ's flag names (`read`, `write`, `notify`, `indicate`, …). */
  characteristics: readonly { uuid: string; flags: readonly string[] }[];
}

/** What a device advertises now. */
export interface SimulatedAdvertisement {
  /** Manufacturer data by company id; each value is the bytes after the company id (as BlueZ hands them). */
  manufacturerData: ReadonlyMap<number, Buffer>;
  /** Signal strength the scanner sees, dBm. */
  rssi: number;
}

/** A simulated BLE device the transports can reach. */
export interface SimulatedDevice {
  /** BLE address, upper case. */
  readonly address: string;
  /** Advertised name. */
  readonly name: string;
  /** False while out of range: it neither advertises nor accepts connections. */
  readonly inRange: boolean;
  /** The GATT database a central finds after connecting. */
  readonly gattDatabase: readonly SimulatedGattService[];
  /** A central connects. @throws GattOperationError (`not_connected`) when out of range. */
  openLink(): SimulatedLockLink;
  /** What it advertises now; null while out of range or when it does not advertise. */
  advertisement(): SimulatedAdvertisement | null;
  /**
   * Calls the listener whenever the advertisement changes (state flag, range); returns the
   * function that removes it. Transports also re-advertise the current value periodically.
   */
  onAdvertisementChange(listener: () => void): () => void;
}
