import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The package of better-sqlite3's Node-API build (13 onward), installed beside the classic
 * one under this alias as an optional dependency (package.json).
 */
export const NODE_API_PACKAGE = 'better-sqlite3-napi';

/** The first Node.js major version that better-sqlite3's Node-API build supports. */
export const NODE_API_FROM_MAJOR = 22;

/** The better-sqlite3 package a process loaded, and its version. */
export interface SqliteDriver {
  readonly package: 'better-sqlite3' | typeof NODE_API_PACKAGE;
  readonly version: string;
  /** Set when the classic build had to be taken on a Node.js that aborts with it. */
  readonly warning?: string;
}

/** A better-sqlite3 connection (the same API in both builds). */
export type Database = BetterSqlite3.Database;

const require = createRequire(import.meta.url);

/**
 * Which build of better-sqlite3 this Node.js can run.
 *
 * better-sqlite3 up to 12 wraps its objects in Node's own `node::ObjectWrap`. From Node 24.19
 * that class, compiled in, removes a cleanup hook when garbage collection frees the object, and
 * checks for an environment that a collection does not have: a process that frees a statement
 * aborts ("Assertion failed: (env) != nullptr", nodejs/node#65446), at any moment of a sync.
 * better-sqlite3 13 is built on Node-API and free of it, but supports Node 22 onward only
 * (on Node 20 its prebuilt binary crashes). npm installs 12 everywhere (compiled from source)
 * and skips the optional 13 where its `engines` rule it out; 13 is taken wherever it was
 * installed and opens a connection, so a platform without its prebuilt binary keeps 12.
 * @example chooseDriver('24.21.0', (name) => require(name)) // the Node-API build, if installed
 */
export function chooseDriver(
  nodeVersion: string,
  load: (name: string) => unknown,
): { readonly driver: SqliteDriver; readonly Database: typeof BetterSqlite3 } {
  const major = Number.parseInt(nodeVersion, 10);
  if (major >= NODE_API_FROM_MAJOR) {
    const nodeApi = loadIfUsable(NODE_API_PACKAGE, load);
    if (nodeApi) return nodeApi;
  }
  const classic = load('better-sqlite3') as typeof BetterSqlite3;
  const driver = driverOf('better-sqlite3', load);
  if (!abortsWithClassic(nodeVersion)) return { driver, Database: classic };
  const warning =
    `better-sqlite3 ${driver.version} on Node.js ${nodeVersion} may abort the process ` +
    `(nodejs/node#65446): run npm ci with this Node.js, which installs ${NODE_API_PACKAGE}`;
  return { driver: { ...driver, warning }, Database: classic };
}

/** Whether this Node.js aborts a process that frees a statement of the classic build (24.19 on). */
function abortsWithClassic(nodeVersion: string): boolean {
  const [major = 0, minor = 0] = nodeVersion.split('.').map((part) => Number.parseInt(part, 10));
  return major > 24 || (major === 24 && minor >= 19);
}

function loadIfUsable(
  name: typeof NODE_API_PACKAGE,
  load: (name: string) => unknown,
): ReturnType<typeof chooseDriver> | undefined {
  let candidate: typeof BetterSqlite3;
  try {
    candidate = load(name) as typeof BetterSqlite3;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
  // Its native part loads with the first connection: one without a binary for this platform
  // fails here, not halfway through a run.
  try {
    new candidate(':memory:').close();
  } catch {
    return undefined;
  }
  return { driver: driverOf(name, load), Database: candidate };
}

function driverOf(name: SqliteDriver['package'], load: (name: string) => unknown): SqliteDriver {
  const { version } = load(`${name}/package.json`) as { version: string };
  return { package: name, version };
}

const chosen = chooseDriver(process.versions.node, require);

/**
 * better-sqlite3's `Database` constructor, from the build this Node.js can run
 * ({@link chooseDriver}). Open every connection with it, never with `better-sqlite3` directly.
 * @example const db = new Database(file, { fileMustExist: true });
 */
export const Database: typeof BetterSqlite3 = chosen.Database;

/** The better-sqlite3 build this process runs on, for the logs. */
export const sqliteDriver: SqliteDriver = chosen.driver;
