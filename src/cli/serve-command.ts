import { readFileSync } from 'node:fs';
import { EKeyService } from '../app.js';
import { validatePluginConfig, type PluginConfig } from '../config/plugin-config.js';
import { consoleLogger } from '../logger.js';
import { defaultDataDir } from './data-dir.js';
import { parseOptions, parsePort } from './parse-options.js';
import { UsageError } from './usage-error.js';
import { stopOnSignals } from './stop-on-signals.js';

/** Reads and validates a config file holding the same object as the Homebridge platform block. */
export function readConfigFile(file: string): PluginConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`Cannot read config file ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const errors = validatePluginConfig(parsed);
  if (errors.length > 0) {
    throw new UsageError(`Config file ${file} is invalid:\n${errors.map((e) => `  ${e.field}: ${e.message}`).join('\n')}`);
  }
  return parsed as PluginConfig;
}

/** `ekey-locks serve --config FILE [--data DIR] [--port N] [--host H]` */
export async function serveCommand(args: string[]): Promise<void> {
  const values = parseOptions(args, {
    config: { type: 'string' },
    data: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
  });
  if (values.config === undefined) throw new UsageError('serve needs --config FILE.');
  const config = readConfigFile(values.config);
  const service = await EKeyService.open({ config, dataDir: values.data ?? defaultDataDir(), logger: consoleLogger, demo: config.demo });
  const url = await service.listen(parsePort(values.port) ?? config.api?.port ?? 8787, values.host ?? config.api?.host ?? '0.0.0.0');
  consoleLogger.info(`eKey access service listening on ${url}`);
  stopOnSignals(() => service.close());
}
