import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceRoot } from '../../src/service-root.js';
import type { PluginConfig } from '../../src/config/plugin-config.js';
import type { DemoHousehold } from '../../src/demo/demo-household.js';
import { ManualClock } from './manual-clock.js';
import { RecordingLogger } from './recording-logger.js';
import { OpenApiResponseCheck } from './openapi-response-check.js';
import type { ObservedResponse } from '../../src/api/server.js';
import type { ServiceOptions } from '../../src/service-options.js';

export interface TestService {
  baseUrl: string;
  service: ServiceRoot;
  clock: ManualClock;
  logger: RecordingLogger;
  demo: DemoHousehold;
  dataDir: string;
  /** Responses so far that docs/openapi.json does not describe (close() fails when there are any). */
  openApiMismatches: readonly string[];
  close(): Promise<void>;
}

export interface TestServiceOptions {
  config?: Partial<PluginConfig>;
  clock?: ManualClock;
  logger?: RecordingLogger;
  /** Reuse a data folder (restart tests); a fresh temporary one otherwise. */
  dataDir?: string;
  /** Hold every response against docs/openapi.json (default true). */
  checkOpenApi?: boolean;
  /**
   * Whether the demo household starts with its week of history (docs/design.md §7). Off unless
   * asked: these tests count a lock's events from zero; the demo's own tests and the e2e suites
   * (the real `ekey-locks demo`) see the history.
   */
  demoHistory?: boolean;
  /** The webhook sender's options (a shorter timeout than 15 s). */
  webhookSender?: ServiceOptions['webhookSender'];
  /** Runs between opening the service and listening (e.g. putting the demo's simulated locks behind a fake Bluetooth proxy). */
  beforeListen?: (service: ServiceRoot) => Promise<void> | void;
}

/**
 * Starts the real service (SQLite file, demo household, HTTP on a free loopback port) for a test.
 * Time is a ManualClock starting at the real current time; the OAuth rate limit is high unless set.
 */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'ekey-test-'));
  const clock = options.clock ?? new ManualClock(Date.now());
  const logger = options.logger ?? new RecordingLogger();
  const config: PluginConfig = {
    ...options.config,
    demo: true,
    api: { oauth_rate_limit_per_minute: 10_000, ...options.config?.api },
  };
  // Every response the tests provoke is held against docs/openapi.json; close() fails on a mismatch.
  const openApi = options.checkOpenApi === false ? undefined : new OpenApiResponseCheck();
  const service = await ServiceRoot.open({
    config,
    dataDir,
    logger,
    clock,
    demoHistory: options.demoHistory ?? false,
    ...(options.webhookSender === undefined ? {} : { webhookSender: options.webhookSender }),
    ...(openApi === undefined ? {} : { observeResponse: (response: ObservedResponse) => openApi.check(response) }),
  });
  await options.beforeListen?.(service);
  const baseUrl = await service.listen(0, '127.0.0.1');
  const demo = service.demo?.household;
  if (!demo) throw new Error('demo household missing');
  return {
    baseUrl,
    service,
    clock,
    logger,
    demo,
    dataDir,
    openApiMismatches: openApi?.mismatches ?? [],
    close: async () => {
      await service.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (openApi !== undefined && openApi.mismatches.length > 0) {
        throw new Error(`Responses that docs/openapi.json does not describe:\n${openApi.mismatches.join('\n')}`);
      }
    },
  };
}
