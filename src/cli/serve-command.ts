import { readFileSync } from 'node:fs';
import { ServiceRoot } from '../service-root.js';
import { checkPluginConfig, type PluginConfig } from '../config/plugin-config.js';
import { consoleLogger, type Logger } from '../logger.js';
import { defaultDataDir } from './data-dir.js';
import { parseOptions, parsePort } from './parse-options.js';
import { UsageError } from './usage-error.js';
import { stopOnSignals } from './stop-on-signals.js';
import { describeError } from '../domain/errors.js';

/**
 * Reads and checks a config file holding the same object as the Homebridge platform block. Unlike
 * the platform, which must never stop the bridge for a config (docs/configuration.md), `serve`
 * runs in a terminal or a service manager and refuses a file with a field at fault outside the lock
 * entries: a usage error listing every such field, so a typo is seen at once. As in Homebridge, a
 * lock entry that cannot run is left out with one error line (docs/design.md §9), and the empty
 * entries the Homebridge UI's form saves are ignored with one line each.
 */
export function readConfigFile(file: string, logger: Logger = consoleLogger): PluginConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`Cannot read config file ${file}: ${describeError(error)}`);
  }
  const check = checkPluginConfig(parsed);
  const refused = check.config === undefined ? check.errors : check.fieldErrors;
  if (refused.length > 0) {
    const lines = [...refused.map((e) => `  ${e.field}: ${e.message}`), ...check.skippedLocks.map((line) => `  ${line}`)];
    throw new UsageError(`Config file ${file} is invalid:\n${lines.join('\n')}`);
  }
  for (const line of check.notes) logger.info(line);
  for (const line of check.problems) logger.error(line);
  return check.config ?? {};
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
  const service = await ServiceRoot.open({ config, dataDir: values.data ?? defaultDataDir(), logger: consoleLogger, demo: config.demo });
  const url = await service.listen(parsePort(values.port) ?? config.api?.port ?? 8787, values.host ?? config.api?.host ?? '0.0.0.0');
  consoleLogger.info(`Web app: ${url}/app/`);
  stopOnSignals(() => service.close());
}
