import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where the CLI keeps data when --data is not given (the plugin's folder in Homebridge storage). */
export const defaultDataDir = (): string => process.env.EKEY_DATA_DIR ?? join(homedir(), '.homebridge', 'ekey-locks');
