import type NodeBle from 'node-ble';
import { Deadline } from '../../deadline.js';
import type { GatewayLogger } from '../../gateway-logger.js';
import { TransportError, type Advertisement, type AdvertisementListener } from '../../gatt-transport.js';
import { AdvertisementSignals } from './bluez-advertisement-signals.js';
import type { BusSession, Session } from './bluez-bus-session.js';
import type { BluezDiscovery } from './bluez-discovery.js';
import { bluetoothHint, raceOrFail } from './bluez-errors.js';
import { helperOf } from './node-ble-internals.js';
import { describeError } from '../../../domain/errors.js';

/** The advertisement watch while it runs. */
interface Scan {
  session: Session;
  adapter: NodeBle.Adapter;
  signals: AdvertisementSignals;
}

/** Thrown inside a scan start that was called off because the last watcher left. */
class ScanCancelled extends Error {}

/**
 * The BlueZ transport's advertisement watch: LE scanning while anyone watches, started in the
 * background, retried quietly while Bluetooth is missing, stopped with the last watcher.
 */
export class BluezScanner {
  private readonly watchers = new Set<AdvertisementListener>();
  private scan: Scan | null = null;
  /** Token of the scan start under way; replaced or cleared to call it off. */
  private scanAttempt: object | null = null;
  private scanRetry: NodeJS.Timeout | null = null;
  private scanFailureReported = false;
  private scanStopping: Promise<void> = Promise.resolve();

  constructor(
    private readonly bus: BusSession,
    private readonly discovery: BluezDiscovery,
    private readonly options: { operationTimeoutMs: number; scanRetryMs: number; logger: GatewayLogger },
  ) {}

  watch(listener: AdvertisementListener): () => void {
    // A wrapper per call, so the same function watched twice is unwatched once per call.
    const watcher: AdvertisementListener = (advertisement) => {
      listener(advertisement);
    };
    this.watchers.add(watcher);
    if (this.watchers.size === 1) this.startScanning();
    return () => {
      if (!this.watchers.delete(watcher)) return;
      if (this.watchers.size === 0) this.stopScanning();
    };
  }

  /** Every watcher leaves; resolves once discovery is off. */
  async close(): Promise<void> {
    this.watchers.clear();
    this.stopScanning();
    await this.scanStopping;
  }

  /** Match rules the running watch holds on `session` (0 while nobody watches). */
  ruleCount(session: Session): number {
    return this.scan?.session === session ? AdvertisementSignals.ruleCount : 0;
  }

  /** The bus under a running scan failed: its rules and discovery died with it; start over later. */
  sessionLost(session: Session): void {
    const scan = this.scan;
    if (scan?.session !== session) return;
    this.scan = null;
    scan.signals.stop();
    this.scheduleScanRetry();
  }

  private startScanning(): void {
    if (this.scan !== null || this.scanAttempt !== null || this.scanRetry !== null) return;
    const attempt = {};
    this.scanAttempt = attempt;
    this.openScan(attempt).then(
      (scan) => {
        if (this.scanAttempt !== attempt || scan.session.broken) {
          // Called off, or the bus broke, between the last step and now.
          scan.signals.stop();
          this.scanStopping = this.discovery.stop(scan.session, scan.adapter);
          if (this.scanAttempt !== attempt) return;
          this.scanAttempt = null;
          this.scheduleScanRetry();
          return;
        }
        this.scanAttempt = null;
        this.scan = scan;
        if (this.scanFailureReported) this.options.logger.info('Bluetooth LE scanning works again.');
        this.scanFailureReported = false;
      },
      (error: unknown) => {
        if (this.scanAttempt !== attempt) return; // called off: nothing to report
        this.scanAttempt = null;
        const message = describeError(error);
        if (this.scanFailureReported || this.bus.failureReported) {
          // Already said (by the scan or by the bus it runs on): retry quietly.
          this.options.logger.debug(`Bluetooth LE scanning: ${message}`);
        } else {
          const hint = bluetoothHint(error);
          this.options.logger.error(`Bluetooth LE scanning is unavailable (${message}); retrying in the background.${hint === undefined ? '' : ` ${hint}`}`);
          this.scanFailureReported = true;
        }
        this.scheduleScanRetry();
      },
    );
  }

  /** Session, adapter, match rules, discovery — or nothing at all if any step fails or is called off. */
  private async openScan(attempt: object): Promise<Scan> {
    const deadline = new Deadline(2 * this.options.operationTimeoutMs);
    const stillWanted = (): void => {
      if (this.scanAttempt !== attempt) throw new ScanCancelled('scan called off');
    };
    let session: Session | undefined;
    let adapter: NodeBle.Adapter | undefined;
    let signals: AdvertisementSignals | undefined;
    let discovering = false;
    try {
      session = await this.bus.ready(deadline);
      adapter = await this.bus.adapterOf(session, deadline);
      stillWanted();
      signals = new AdvertisementSignals(session.bus, helperOf(adapter).object, (advertisement) => {
        this.deliver(advertisement);
      });
      await raceOrFail(deadline, signals.start(), 'bus_unavailable', 'AddMatch was not answered');
      discovering = true;
      if (!(await this.discovery.start(session, adapter, deadline))) throw new TransportError('connect_failed', 'StartDiscovery failed');
      stillWanted();
      if (session.broken) throw new TransportError('bus_unavailable', 'the bus connection broke');
      return { session, adapter, signals };
    } catch (error) {
      signals?.stop();
      if (discovering && session !== undefined && adapter !== undefined) this.scanStopping = this.discovery.stop(session, adapter);
      throw error;
    } finally {
      deadline.cancel();
    }
  }

  private stopScanning(): void {
    this.scanAttempt = null; // a start under way undoes itself
    if (this.scanRetry !== null) clearTimeout(this.scanRetry);
    this.scanRetry = null;
    const scan = this.scan;
    this.scan = null;
    if (scan === null) return;
    scan.signals.stop();
    this.scanStopping = this.discovery.stop(scan.session, scan.adapter);
  }

  private scheduleScanRetry(): void {
    if (this.scanRetry !== null || this.watchers.size === 0) return;
    this.scanRetry = setTimeout(() => {
      this.scanRetry = null;
      if (this.watchers.size > 0) this.startScanning();
    }, this.options.scanRetryMs);
    // Waiting for Bluetooth must never keep a process alive.
    this.scanRetry.unref();
  }

  private deliver(advertisement: Advertisement): void {
    for (const watcher of [...this.watchers]) {
      try {
        watcher(advertisement);
      } catch (error) {
        // A listener's bug must not stop the others or reach dbus-next's message loop.
        this.options.logger.error(`Advertisement listener failed: ${describeError(error)}`);
      }
    }
  }
}
