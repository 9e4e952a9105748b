import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PairingData } from 'hap-controller';
import { DEMO_CONTROL_ENV } from '../../src/homebridge/demo-control-channel.js';
import { DemoControlClient } from './demo-control-client.js';
import { call, signInDemoUser, type HttpAnswer } from './demo-process.js';
import { HapTestController } from './hap-test-controller.js';
import { buildPluginFolder, HomebridgeSupervisor, type HomebridgeSetup, type RunningHomebridge } from './homebridge-process.js';

/** What one HomeKit suite's bridge is set up with. */
export interface HomeKitDemoBridgeOptions {
  /** The `mkdtemp` prefix of Homebridge's storage folder. */
  storagePrefix: string;
  /** Setup code `XXX-XX-XXX`. */
  pin: string;
  /** Bridge MAC-style username (the HAP device id); one per suite. */
  username: string;
  /** The EKeyLocks platform block besides `demo: true`. */
  platform?: Record<string, unknown>;
}

interface RunningBridge {
  homebridge: RunningHomebridge;
  control: DemoControlClient;
  controller: HapTestController;
  pairing: PairingData;
}

/**
 * The bridge of a HomeKit end-to-end suite: the real `homebridge` with the plugin in demo mode in a
 * private network namespace (see {@link HomebridgeSupervisor}), the demo control socket
 * (EKEY_DEMO_CONTROL) and a HAP controller paired with the setup PIN, as the Home app would be.
 * `start()` in the suite's `beforeAll`, `dispose()` in its `afterAll`: it tolerates what never
 * started, so a failed start is cleaned up too.
 */
export class HomeKitDemoBridge {
  readonly supervisor = new HomebridgeSupervisor();
  readonly storage: string;
  private readonly controlPath: string;
  private setup: HomebridgeSetup | undefined;
  private running: RunningBridge | undefined;
  private partial: Partial<Omit<RunningBridge, 'pairing'>> = {};

  constructor(private readonly options: HomeKitDemoBridgeOptions) {
    this.storage = mkdtempSync(join(tmpdir(), options.storagePrefix));
    this.controlPath = join(this.supervisor.socketFolder, 'control.sock');
  }

  /** Builds the plugin, starts Homebridge, opens the control socket and pairs the controller. */
  async start(): Promise<void> {
    const setup: HomebridgeSetup = {
      storage: this.storage,
      pluginFolder: buildPluginFolder(),
      pin: this.options.pin,
      username: this.options.username,
      platform: { demo: true, ...this.options.platform },
      env: { [DEMO_CONTROL_ENV]: this.controlPath },
    };
    this.setup = setup;
    const controller = await this.launch(setup);
    await controller.pair(this.options.pin);
    this.finish(controller.pairingData());
  }

  /**
   * Stops Homebridge and starts it again on the same storage: a new control socket and a new
   * controller that connects with the stored pairing (no pair-setup). Subscriptions are the
   * caller's to make again.
   */
  async restart(): Promise<void> {
    const { pairing } = this.current;
    await this.controller.close();
    this.control.close();
    await this.homebridge.stop();
    this.running = undefined;
    if (this.setup === undefined) throw new Error('the bridge was never started');
    await this.launch(this.setup, pairing);
    this.finish(pairing);
  }

  private async launch(setup: HomebridgeSetup, pairing?: PairingData): Promise<HapTestController> {
    this.partial = {};
    this.partial.homebridge = await this.supervisor.start(setup);
    this.partial.control = new DemoControlClient(this.controlPath);
    this.partial.controller = new HapTestController(this.options.username, this.partial.homebridge.hapPort, pairing);
    return this.partial.controller;
  }

  private finish(pairing: PairingData): void {
    const { homebridge, control, controller } = this.partial;
    if (!homebridge || !control || !controller) throw new Error('the bridge did not start');
    this.running = { homebridge, control, controller, pairing };
  }

  private get current(): RunningBridge {
    if (!this.running) throw new Error('the bridge is not running (start() failed or was not called)');
    return this.running;
  }

  get homebridge(): RunningHomebridge {
    return this.current.homebridge;
  }

  get control(): DemoControlClient {
    return this.current.control;
  }

  get controller(): HapTestController {
    return this.current.controller;
  }

  /** The long-term keys the controller paired with. */
  get pairing(): PairingData {
    return this.current.pairing;
  }

  /** The id of the demo lock named `name` ('' when there is none). */
  lockId(name: string): string {
    return this.homebridge.demo.locks.find((lock) => lock.name === name)?.id ?? '';
  }

  /** An access token of a demo user (by e-mail; the owner by default), signed in over the REST API. */
  async signIn(email?: string): Promise<string> {
    return (await signInDemoUser(this.homebridge.apiUrl, this.homebridge.demo, email)).access_token;
  }

  /** One call of the REST API with a bearer token. */
  api(token: string, method: string, path: string, body?: unknown): Promise<HttpAnswer> {
    return call(this.homebridge.apiUrl, method, path, { token, ...(body === undefined ? {} : { body }) });
  }

  /** Closes the controller and the control socket, stops Homebridge, removes every folder. */
  async dispose(): Promise<void> {
    const { homebridge, control, controller } = this.partial;
    try {
      control?.close();
      await controller?.close().catch(() => undefined);
      await homebridge?.stop().catch(() => undefined);
    } finally {
      await this.supervisor.dispose();
      rmSync(this.storage, { recursive: true, force: true });
      if (this.setup !== undefined) rmSync(this.setup.pluginFolder, { recursive: true, force: true });
    }
  }
}
