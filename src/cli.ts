#!/usr/bin/env node
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { USAGE, UsageError } from './cli/usage-error.js';
import { describeError } from './domain/errors.js';

// Each command loads its own modules when it runs: a family's `decode` does not pay for the
// service, Fastify and BlueZ at every start.

async function openapiCommand(): Promise<void> {
  const [{ ServiceRoot }, { silentLogger }] = await Promise.all([import('./service-root.js'), import('./logger.js')]);
  const dataDir = mkdtempSync(join(tmpdir(), 'ekey-openapi-'));
  const service = await ServiceRoot.open({ config: {}, applyConfig: false, dataDir, logger: silentLogger, demo: false });
  try {
    process.stdout.write(`${JSON.stringify(await service.openApiDocument(), null, 2)}\n`);
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Entry point of the `ekey-locks` command. Exit codes: 0 ok, 1 failure, 2 usage error. */
async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  switch (command) {
    case 'serve':
      return (await import('./cli/serve-command.js')).serveCommand(args);
    case 'demo':
      return (await import('./cli/demo-command.js')).demoCommand(args);
    case 'user':
      return (await import('./cli/user-command.js')).userCommand(args);
    case 'client':
      return (await import('./cli/client-command.js')).clientCommand(args);
    case 'openapi':
      return openapiCommand();
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return;
    case undefined:
      throw new UsageError('No command given.');
    default: {
      // `ekey-locks <family> …`: a lock family's own tools (src/families/registry.ts).
      const { LOCK_FAMILIES } = await import('./families/registry.js');
      const family = LOCK_FAMILIES.find((candidate) => candidate.cli?.name === command);
      const module = family === undefined ? undefined : await family.load();
      if (module?.cli === undefined) throw new UsageError(`Unknown command "${command}".`);
      return module.cli(args);
    }
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`ekey-locks: ${error.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`ekey-locks: ${describeError(error)}\n`);
  process.exit(1);
});
