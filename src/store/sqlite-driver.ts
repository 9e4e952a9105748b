import type BetterSqlite3 from 'better-sqlite3';
import { createRequire } from 'node:module';

/**
 * better-sqlite3, the one SQLite driver (docs/design.md §10; docs/decisions/runtimes.md): 13.x is
 * built on Node-API and serves Node 22 and 24 alike. On an older Node its binary crashes at the
 * first query, so this module refuses such a Node with one sentence first (the install refuses it
 * too: scripts/node-version-check.mjs). Every run-time import of the driver goes through here (an
 * ESLint rule keeps it so).
 */
export const SQLITE_DRIVER = 'better-sqlite3';

/** The oldest Node major the driver runs on (package.json `engines`). */
const OLDEST_NODE_MAJOR = 22;

function loadDriver(): typeof BetterSqlite3 {
  if (Number(process.versions.node.split('.')[0]) < OLDEST_NODE_MAJOR) {
    throw new Error(`homebridge-ekey-locks needs Node.js 22 or 24; this is Node.js v${process.versions.node}. Update Node.js, then install the plugin again.`);
  }
  const require = createRequire(import.meta.url);
  try {
    return require(SQLITE_DRIVER) as typeof BetterSqlite3;
  } catch (error) {
    throw new Error(
      `SQLite driver ${SQLITE_DRIVER} for Node ${process.version} is not installed or does not load (${error instanceof Error ? error.message : String(error)}); ` +
        'run npm install again with this Node (supported: Node 22 and 24)',
      { cause: error },
    );
  }
}

/** better-sqlite3's `Database` constructor. */
const Database: typeof BetterSqlite3 = loadDriver();
export default Database;
