/** A mistake in how the CLI was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const USAGE = `Usage: ekey-locks <command> [options]

Commands:
  serve --config FILE [--data DIR] [--port N] [--host H]
                                 Run the access service (no HomeKit) from a config file
  demo [--port N] [--data DIR] [--host H]
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
  nuki scan [--seconds N] [--adapter hciX]
                                 List the Nuki Smart Locks and Openers nearby, with each one's
                                 model and Bluetooth API level
  nuki pair --address AA:BB:CC:DD:EE:FF [--name N] [--pin PIN] [--as-bridge] [--data DIR]
            [--adapter hciX] [--timeout-s N]
                                 Pair with a Nuki Smart Lock or Opener in pairing mode (button
                                 held 5 s; an Ultra, Go or Pro 5th generation needs its 6-digit
                                 --pin); stores its credentials in the data folder and prints
                                 the config block
  nuki decode [--shared-key HEX64] FRAME_HEX
                                 Dissect a Nuki Bluetooth frame (read as encrypted when a shared
                                 key is given); prints one JSON line
  nuki encode --command N [--payload HEX] [--shared-key HEX64 --auth-id N --nonce HEX48]
                                 Build a Nuki frame (encrypted with the three crypto options);
                                 prints it as hex
  openapi                        Print the OpenAPI document of the REST API
  help                           Show this text

--data defaults to $EKEY_DATA_DIR, else ~/.homebridge/ekey-locks (the plugin's folder inside
Homebridge's storage path), so "user add" and "client add" work on a Homebridge install as-is.`;
