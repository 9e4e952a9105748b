import type { SetupCalendar, SetupGateway, SetupLock, SetupOwner } from '../access/setup-service.js';
import { UsageError } from '../cli/usage-error.js';
import type { FamilyPairing, PairingIo, ScannedDevice } from '../families/lock-family-module.js';
import { BluetoothUnavailable, PairingFailed } from '../families/pairing-errors.js';
import { LOCK_FAMILIES, familyDescriptor } from '../families/registry.js';
import type { PairingDescriptor } from '../families/lock-family.js';
import type { GattTransport } from '../gateway/gatt-transport.js';
import type { GatewayLogger } from '../gateway/gateway-logger.js';
import { hostTransport } from '../gateway/transports/bluez/host-transport.js';
import { everyGatewayRadio } from '../cli/pairing-radio.js';
import { CompositeTransport } from '../gateway/transports/composite/composite-transport.js';
import type { SettingsUiStatus } from '../store/settings-ui-file.js';
import { ServiceUnavailable, configProblems, dataDirOf, readServiceStatus } from './service-status-reader.js';
import { describeError } from '../domain/errors.js';

/** A failure the page shows as it is (server.js turns it into a RequestError). */
export class SettingsUiError extends Error {}

export type ServiceView =
  | {
      state: 'running';
      message: string;
      base_url: string;
      port: number;
      public_url: boolean;
      started_at: string;
      locks: SetupLock[];
      owners: SetupOwner[];
      /** docs/design.md §4e: every gateway device with its state and free connection slots. */
      gateways: SetupGateway[];
      /** docs/design.md §12: every rental calendar with its state. */
      calendars: SetupCalendar[];
      /** What the service left out of its config, one line each (the log's words). */
      config_problems: string[];
    }
  | { state: 'stopped' | 'unreadable' | 'unreachable' | 'refused'; message: string };

export interface SettingsUiHandlerOptions {
  /** Homebridge's storage path (HOMEBRIDGE_STORAGE_PATH); undefined outside the Homebridge UI. */
  storagePath: string | undefined;
  /** Progress lines of a running scan or pairing (of `family`), pushed to the page as they come. */
  progress: (line: string, family: string) => void;
  /** How long one call to the service may take. */
  requestTimeoutMs?: number;
  /** The Bluetooth transport of scan and pair (tests keep the default: the host's BlueZ on the system bus). */
  transport?: (adapter: string | undefined, logger: GatewayLogger) => GattTransport;
  isAlive?: (pid: number) => boolean;
}

/** What the page says when the host has no Bluetooth the plugin can use (docs/design.md §7). */
export function noBluetoothMessage(noun: string): string {
  return `This Homebridge host has no Bluetooth that the plugin can use, so it cannot look for ${noun}s: install and start BlueZ, then scan again.`;
}

const ADDRESS = /^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$/;

/** A family whose locks are paired, as the page offers it (src/families/lock-family.ts `pairing`). */
export type PairableFamily = PairingDescriptor & { family: string };

/** A device a scan heard, as the page shows it and pairs it. */
export interface ScannedLock {
  address: string;
  rssi: number | null;
  /** "Nuki Smart Lock 1.0–4.0", "Nuki Opener". */
  model: string;
  /** "2.2", "2.3", or null when the scan could not tell. */
  api_level: string | null;
  /** docs/design.md §4e: the gateway that heard it — `host` (this host's adapter) or a Bluetooth proxy's name; null when the radio does not say. */
  gateway: string | null;
  /** The config `family` the device is added with. */
  family: string;
  /** Pairing needs the device's PIN. */
  pin_required: boolean;
}

const scannedLock = (device: ScannedDevice): ScannedLock => ({
  address: device.address,
  rssi: device.rssi,
  model: device.model,
  api_level: device.apiLevel,
  gateway: device.gateway ?? null,
  family: device.family,
  pin_required: device.pinRequired,
});

/**
 * What homebridge-ui/server.js answers. It runs in a process of the Homebridge UI, not in
 * Homebridge: it finds the service through the status file of the data folder and talks to its
 * HTTP API with the setup token (docs/architecture.md "The settings page"); scan and pair run the
 * same code as `ekey-locks nuki scan|pair`. Every failure is a SettingsUiError with a sentence.
 */
export class SettingsUiHandlers {
  private bluetoothBusy = false;

  constructor(private readonly options: SettingsUiHandlerOptions) {}

  /** `/status`: never throws; a service that cannot be reached is a state with a message. */
  async status(): Promise<ServiceView> {
    try {
      const status = this.serviceStatus();
      const answer = (await this.call(status, 'GET', '/setup/status')) as { locks: SetupLock[]; owners: SetupOwner[]; gateways?: SetupGateway[]; calendars?: SetupCalendar[] };
      const count = answer.locks.length;
      return {
        state: 'running',
        message: `The service is running at ${status.base_url} with ${count === 1 ? 'one lock' : `${count} locks`}.`,
        base_url: status.base_url,
        port: status.port,
        public_url: status.public_url,
        started_at: status.started_at,
        locks: answer.locks,
        owners: answer.owners,
        gateways: answer.gateways ?? [],
        calendars: answer.calendars ?? [],
        config_problems: configProblems(dataDirOf(this.options.storagePath ?? '')),
      };
    } catch (error) {
      if (error instanceof ServiceUnavailable) return { state: error.state, message: error.message };
      return { state: 'refused', message: `The service could not be asked: ${describeError(error)}` };
    }
  }

  /** `/owner`: creates a lock owner's account while it is still only invited. */
  async createOwner(body: unknown): Promise<{ id: string; email: string; name: string }> {
    const input = body as Partial<Record<'email' | 'name' | 'password', unknown>> | null;
    if (typeof input?.email !== 'string' || typeof input.name !== 'string' || typeof input.password !== 'string') {
      throw new SettingsUiError('E-mail, name and password are required.');
    }
    if (input.name.trim() === '') throw new SettingsUiError('Enter the owner\'s name.');
    if (input.password.length < 8) throw new SettingsUiError('The password needs at least 8 characters.');
    const status = this.serviceStatusOrError();
    return (await this.callOrError(status, 'POST', '/setup/owner', { email: input.email, name: input.name, password: input.password })) as {
      id: string;
      email: string;
      name: string;
    };
  }

  /**
   * `/form`: the lock fields the config form edits as a list although they may be written as a
   * map (a Nuki's `nuki_users`: name → e-mail): the form drops on Save what it cannot show, so the
   * page hands it the list shape (`[{ <key>: name, <value>: e-mail }]`) first.
   */
  formShapes(): { listFields: { field: string; key: string; value: string }[] } {
    const listFields = new Map<string, { field: string; key: string; value: string }>();
    for (const family of LOCK_FAMILIES) {
      for (const [field, schema] of Object.entries(family.configFields)) {
        const choice = schema['x-form-choice'];
        const shapes = schema.anyOf;
        if (typeof choice !== 'number' || !Array.isArray(shapes)) continue;
        const list = shapes[choice] as { type?: unknown; items?: { properties?: Record<string, unknown> } } | undefined;
        const names = Object.keys(list?.items?.properties ?? {});
        if (list?.type === 'array' && names.length === 2) listFields.set(field, { field, key: names[0] ?? '', value: names[1] ?? '' });
      }
    }
    return { listFields: [...listFields.values()] };
  }

  /** `/pairing`: the families whose locks are paired here, each with what the page says of it. */
  pairingFamilies(): { families: PairableFamily[] } {
    return {
      families: LOCK_FAMILIES.flatMap((family) => (family.pairing === undefined ? [] : [{ family: family.id, ...family.pairing }])),
    };
  }

  /**
   * `/scan`: the family's scan (`ekey-locks <family> scan`) for `seconds` (1–30), with each device
   * it heard: its model, protocol level, config family and whether pairing needs a PIN
   * (docs/design.md §4d).
   */
  async scan(body: unknown): Promise<{ locks: ScannedLock[]; lines: string[] }> {
    const input = body as { family?: unknown; seconds?: unknown } | null;
    const family = this.pairableFamily(input?.family);
    const seconds = input?.seconds ?? 10;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > 30) throw new SettingsUiError('Scan for 1 to 30 seconds.');
    const { lines, result } = await this.runBluetooth(family, async (io) => (await this.pairing(family.id)).scan({ seconds }, io));
    return { locks: result.map(scannedLock), lines };
  }

  /**
   * `/pair`: the family's pairing (`ekey-locks <family> pair`, as an app, never as a bridge from
   * here) into the plugin's data folder. Answers the config entry to add; the service reads the new
   * credentials when Homebridge restarts.
   */
  async pair(body: unknown): Promise<{ lines: string[]; lock: Record<string, unknown> }> {
    const input = body as Partial<Record<'family' | 'address' | 'name' | 'pin' | 'timeout_s', unknown>> | null;
    const family = this.pairableFamily(input?.family);
    const address = input?.address;
    if (typeof address !== 'string' || !ADDRESS.test(address)) throw new SettingsUiError('Choose a lock to pair (an address like AA:BB:CC:DD:EE:FF).');
    const dataDir = dataDirOf(this.storagePathOrError());
    const options = {
      address,
      dataDir,
      ...(typeof input?.name === 'string' && input.name.trim() !== '' ? { name: input.name.trim() } : {}),
      ...(typeof input?.pin === 'string' && input.pin.trim() !== '' ? { pin: input.pin.trim() } : {}),
      ...(typeof input?.timeout_s === 'number' ? { timeoutS: input.timeout_s } : {}),
    };
    if (options.name !== undefined && Buffer.byteLength(options.name) > 32) throw new SettingsUiError('The name may have at most 32 bytes: the lock keeps no more.');
    const { lines, result } = await this.runBluetooth(family, async (io) => (await this.pairing(family.id)).pair(options, io));
    return { lines, lock: result.entry };
  }

  /** The descriptor of a family whose locks are paired. @throws SettingsUiError for any other */
  private pairableFamily(id: unknown): { id: string; noun: string } {
    const family = typeof id === 'string' ? familyDescriptor(id) : undefined;
    if (family?.pairing === undefined) throw new SettingsUiError('Choose a kind of lock to pair.');
    return { id: family.id, noun: family.pairing.noun };
  }

  private async pairing(id: string): Promise<FamilyPairing> {
    const pairing = (await familyDescriptor(id)?.load())?.pairing;
    if (pairing === undefined) throw new SettingsUiError('This kind of lock is not paired.');
    return pairing;
  }

  /** Runs one scan or pairing at a time, collecting its lines; its failures become sentences. */
  private async runBluetooth<T>(family: { id: string; noun: string }, run: (io: PairingIo) => Promise<T>): Promise<{ lines: string[]; result: T }> {
    if (this.bluetoothBusy) throw new SettingsUiError('A scan or pairing is already running; wait until it ends.');
    this.bluetoothBusy = true;
    const lines: string[] = [];
    const collect = (line: string): void => {
      // A multi-line block keeps its lines apart, like the terminal does.
      for (const part of line.split('\n')) {
        lines.push(part);
        this.options.progress(part, family.id);
      }
    };
    // Every gateway of the config (the host's adapter and each Bluetooth proxy), so each lock found says which heard it.
    const storagePath = this.options.storagePath;
    const radio = this.options.transport ?? (storagePath === undefined || storagePath === '' ? hostTransport : everyGatewayRadio(storagePath));
    const transport = (adapter: string | undefined, logger: GatewayLogger): GattTransport => {
      const opened = radio(adapter, logger);
      // The host's adapter alone is the gateway `host` too: every lock found says who heard it.
      return opened instanceof CompositeTransport ? opened : new CompositeTransport([{ name: 'host', transport: opened }], { logger });
    };
    const io: PairingIo = { progress: collect, warn: collect, transport };
    try {
      const result = await run(io);
      return { lines, result };
    } catch (error) {
      // One plain sentence for the page; the terminal's version (with BlueZ's own words) stays in the CLI.
      if (error instanceof BluetoothUnavailable) throw new SettingsUiError(noBluetoothMessage(family.noun));
      if (error instanceof PairingFailed || error instanceof UsageError || error instanceof SettingsUiError) throw new SettingsUiError(error.message);
      throw new SettingsUiError(`Bluetooth failed unexpectedly: ${describeError(error)}`);
    } finally {
      this.bluetoothBusy = false;
    }
  }

  private storagePathOrError(): string {
    const path = this.options.storagePath;
    if (path === undefined || path === '') throw new SettingsUiError('Homebridge\'s storage path is unknown (HOMEBRIDGE_STORAGE_PATH is not set): open this page from the Homebridge UI.');
    return path;
  }

  private serviceStatus(): SettingsUiStatus {
    const path = this.options.storagePath;
    if (path === undefined || path === '') throw new ServiceUnavailable('unreadable', 'Homebridge\'s storage path is unknown (HOMEBRIDGE_STORAGE_PATH is not set): open this page from the Homebridge UI.');
    return readServiceStatus(dataDirOf(path), this.options.isAlive);
  }

  private serviceStatusOrError(): SettingsUiStatus {
    try {
      return this.serviceStatus();
    } catch (error) {
      throw new SettingsUiError(describeError(error));
    }
  }

  private async callOrError(status: SettingsUiStatus, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    try {
      return await this.call(status, method, path, body);
    } catch (error) {
      throw new SettingsUiError(describeError(error));
    }
  }

  /** One request to the service's API. @throws ServiceUnavailable with the reason in words */
  private async call(status: SettingsUiStatus, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const timeoutMs = this.options.requestTimeoutMs ?? 5000;
    let response: Response;
    try {
      response = await fetch(new URL(path, `${status.local_url}/`), {
        method,
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${status.setup_token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      // fetch's timeout is a DOMException (not an Error of this realm): recognised by its name.
      const reason = (error as { name?: unknown } | null)?.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : describeNetworkError(error);
      throw new ServiceUnavailable('unreachable', `The eKey Locks service at ${status.local_url} does not answer (${reason}). It may be starting or stuck: wait a moment, then restart Homebridge if it stays so.`);
    }
    const text = await response.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    if (response.ok) return parsed;
    if (response.status === 401) throw new ServiceUnavailable('refused', 'The service did not accept this page\'s setup token: another service may have replaced the status file. Restart Homebridge.');
    throw new ServiceUnavailable('refused', problemSentence(parsed, response.status));
  }
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string } } | null)?.cause;
  return cause?.code ?? (describeError(error));
}

/** The problem+json `detail` (with its field errors), or the status. */
function problemSentence(body: unknown, status: number): string {
  const problem = body as { detail?: unknown; title?: unknown; code?: unknown; errors?: { field?: unknown; message?: unknown }[] } | null;
  const fields = Array.isArray(problem?.errors)
    ? problem.errors.map((error) => `${typeof error.field === 'string' ? error.field.replace(/^\//, '') : ''} ${typeof error.message === 'string' ? error.message : ''}`.trim()).filter((text) => text !== '')
    : [];
  if (status === 404 && problem?.code === 'not_found') return 'No lock in the service has this owner e-mail. Add the lock with this owner\'s e-mail to the config, save and restart Homebridge first.';
  const detail = typeof problem?.detail === 'string' ? problem.detail : typeof problem?.title === 'string' ? problem.title : `The service answered ${status}.`;
  return fields.length === 0 ? detail : `${detail} (${fields.join('; ')})`;
}
