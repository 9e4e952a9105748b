import { LOCK_FAMILIES } from '../families/registry.js';

/** A mistake in how the CLI was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The lock families' own commands (`ekey-locks <family> …`), as each family describes them. */
const familyUsage = LOCK_FAMILIES.flatMap((family) => family.cli?.usage ?? [])
  .map((line) => `${line}\n`)
  .join('');

export const USAGE = `Usage: ekey-locks <command> [options]

Commands:
  serve --config FILE [--data DIR] [--port N] [--host H]
                                 Run the access service (no HomeKit) from a config file
  demo [--config FILE] [--port N] [--data DIR] [--host H]
                                 Run the demo household with simulated locks (on 127.0.0.1
                                 unless --host, e.g. 0.0.0.0); prints one JSON line (also
                                 DIR/demo.json), then reads JSON control lines on stdin
  user add --email E --name N [--password-stdin | --password P] [--quota N] [--data DIR]
                                 Create a user (or activate an invited one)
  user list [--data DIR]         List users
  user reset-password --email E [--password-stdin | --password P] [--data DIR]
                                 Set a user's new password; every session of theirs ends
  client add --name N --redirect-uri URI [--redirect-uri URI …] [--public] [--data DIR]
                                 Register an OAuth client; prints its id and secret once
${familyUsage}  openapi                        Print the OpenAPI document of the REST API
  help                           Show this text

--data defaults to $EKEY_DATA_DIR, else ~/.homebridge/ekey-locks (the plugin's folder inside
Homebridge's storage path), so "user add" and "client add" work on a Homebridge install as-is.`;
