import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceRoot } from '../service-root.js';
import { consoleLogger } from '../logger.js';
import { parseOptions, parsePort } from './parse-options.js';
import { stopOnSignals } from './stop-on-signals.js';
import { describeError } from '../domain/errors.js';
import type { PluginConfig } from '../config/plugin-config.js';
import { readConfigFile } from './serve-command.js';

/**
 * `ekey-locks demo [--config FILE] [--port N] [--data DIR] [--host H]`: the demo household, on loopback unless
 * `--host` says otherwise (`0.0.0.0` to try it from a phone). With `--config`, the rest of a
 * platform block joins it (docs/design.md §6): `api`, `mqtt` (a real broker, docs/home-assistant.md), `bluetooth.proxies` (a real ESPHome
 * Bluetooth proxy, docs/gateways.md), more `locks` (e.g. one reached through that proxy); what
 * the demo sets itself (its household, demo mode) wins over the file's. The first stdout line is the demo
 * JSON (docs/design.md §6), also written to `demo.json` in the data folder; logs go to stderr so
 * stdout stays machine-readable. Then
 * stdin takes the JSON-line control protocol (src/demo/demo-control.ts), one answer line each.
 */
export async function demoCommand(args: string[]): Promise<void> {
  const values = parseOptions(args, { port: { type: 'string' }, data: { type: 'string' }, host: { type: 'string' }, config: { type: 'string' } });
  // The file is read (and refused when it has a field at fault) before anything is written.
  const file: PluginConfig = values.config === undefined ? {} : readConfigFile(values.config);
  const dataDir = values.data ?? mkdtempSync(join(tmpdir(), 'ekey-locks-demo-'));
  const config: PluginConfig = { ...file, demo: true };
  const service = await ServiceRoot.open({ config, dataDir, logger: consoleLogger, demo: true });
  await service.listen(parsePort(values.port) ?? file.api?.port ?? 0, values.host ?? file.api?.host ?? '127.0.0.1');
  process.stdout.write(`${JSON.stringify(service.demoInfo())}\n`);
  consoleLogger.info(`demo data in ${dataDir}`);
  consoleLogger.info(`Web app: ${service.baseUrl ?? ''}/app/`);
  stopOnSignals(() => service.close());
  const control = service.demoControl;
  if (control) {
    // The end of stdin ends the control channel only; the demo runs until SIGTERM/SIGINT.
    control.serve(process.stdin, process.stdout).catch((error: unknown) => {
      consoleLogger.error(`demo control stopped: ${describeError(error)}`);
    });
  }
}
