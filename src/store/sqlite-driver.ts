import type BetterSqlite3 from 'better-sqlite3';
import { createRequire } from 'node:module';

/**
 * The better-sqlite3 build for the Node that runs us (docs/design.md §10;
 * docs/decisions/runtimes.md). No one better-sqlite3 serves Node 20, 22 and 24:
 *
 * - 12.x wraps its objects in Node's raw `node::ObjectWrap`. From Node 24.19 that class removes an
 *   environment cleanup hook in its destructor and aborts the process (`RemoveEnvironmentCleanupHook
 *   … (env) != nullptr`) when V8 collects a statement or database at a moment with no Node
 *   environment in reach — at random, at start or exit.
 * - 13.x is built on Node-API (no `ObjectWrap`), ships prebuilt binaries, and needs Node ≥ 22: on
 *   Node 20 its binary crashes at the first query.
 *
 * package.json lists both as optional dependencies: `better-sqlite3` (13) and `better-sqlite3-node20`
 * (an alias of 12). npm leaves out an optional package whose `engines` the running Node does not
 * meet, silently, so Node 20 gets 12 alone and Node 22/24 get both; this module loads 13 on 22+ and
 * 12 on 20. The API the service uses is the same in both.
 */
export const SQLITE_DRIVER: string = Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';

function loadDriver(): typeof BetterSqlite3 {
  const require = createRequire(import.meta.url);
  try {
    return require(SQLITE_DRIVER) as typeof BetterSqlite3;
  } catch (error) {
    throw new Error(
      `SQLite driver ${SQLITE_DRIVER} for Node ${process.version} is not installed or does not load (${error instanceof Error ? error.message : String(error)}); ` +
        'run npm install again with this Node (supported: Node 20.18+, 22 and 24)',
      { cause: error },
    );
  }
}

/** better-sqlite3's `Database` constructor, from the build that serves this Node. */
const Database: typeof BetterSqlite3 = loadDriver();
export default Database;
