import { join } from 'node:path';
import type { API, DynamicPlatformPlugin, Logging, PlatformAccessory, PlatformConfig } from 'homebridge';
import { EKeyService } from '../app.js';
import { validatePluginConfig, type PluginConfig } from '../config/plugin-config.js';
import type { Logger } from '../logger.js';

/** Adapts Homebridge's log to our Logger (Homebridge's debug only shows with -D). */
const toLogger = (log: Logging): Logger => ({
  debug: (message) => log.debug(message),
  info: (message) => log.info(message),
  warn: (message) => log.warn(message),
  error: (message) => log.error(message),
});

/** What makes a config worth starting: demo mode, or at least one lock or client. */
const isConfigured = (config: PluginConfig): boolean =>
  config.demo === true || (config.locks?.length ?? 0) > 0 || (config.clients?.length ?? 0) > 0;

/**
 * The Homebridge dynamic platform. It embeds the access service: started after Homebridge has
 * finished launching, stopped on shutdown, data in Homebridge's storage path. No error escapes
 * into Homebridge: a fault here disables this plugin, never the bridge.
 */
export class EKeyLocksPlatform implements DynamicPlatformPlugin {
  private readonly logger: Logger;
  private readonly cachedAccessories = new Map<string, PlatformAccessory>();
  private service: EKeyService | undefined;

  constructor(
    private readonly log: Logging,
    private readonly platformConfig: PlatformConfig | undefined,
    private readonly api: API,
  ) {
    this.logger = toLogger(log);
    api.on('didFinishLaunching', () => {
      this.start().catch((error: unknown) => {
        this.log.error(`eKey Locks could not start: ${error instanceof Error ? error.message : String(error)}`);
      });
    });
    api.on('shutdown', () => {
      this.stop().catch((error: unknown) => {
        this.log.error(`eKey Locks did not stop cleanly: ${error instanceof Error ? error.message : String(error)}`);
      });
    });
  }

  /** Homebridge hands back accessories restored from its cache; we only collect them here. */
  configureAccessory(accessory: PlatformAccessory): void {
    this.cachedAccessories.set(accessory.UUID, accessory);
  }

  private async start(): Promise<void> {
    const config = (this.platformConfig ?? {}) as PluginConfig;
    const errors = validatePluginConfig(config);
    if (errors.length > 0) {
      this.log.error(`Configuration is invalid; eKey Locks is not started:\n${errors.map((e) => `  ${e.field}: ${e.message}`).join('\n')}`);
      return;
    }
    if (!isConfigured(config)) {
      this.log.warn('eKey Locks is not configured (no locks, no clients, demo off): nothing to do. See the README to set it up.');
      return;
    }
    const dataDir = join(this.api.user.storagePath(), 'ekey-locks');
    const demo = config.demo === true;
    this.service = await EKeyService.open({ config, dataDir, logger: this.logger, demo });
    const url = await this.service.listen(config.api?.port ?? (demo ? 0 : 8787), config.api?.host ?? (demo ? '127.0.0.1' : '0.0.0.0'));
    this.log.info(`eKey access service listening on ${url}`);
    const demoInfo = this.service.demoInfo();
    if (demoInfo) {
      // Written raw, once, so the line itself starts with EKEY_DEMO (Homebridge's log adds prefixes).
      process.stdout.write(`EKEY_DEMO ${JSON.stringify(demoInfo)}\n`);
      for (const user of demoInfo.users) this.log.info(`Demo login: ${user.email} / ${user.password} (${user.name})`);
    }
  }

  private async stop(): Promise<void> {
    const service = this.service;
    this.service = undefined;
    await service?.close();
  }
}
