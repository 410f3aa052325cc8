import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  chooseDriver,
  NODE_API_FROM_MAJOR,
  NODE_API_PACKAGE,
  sqliteDriver,
} from '../src/sqlite-driver.js';

const DRIVER = fileURLToPath(new URL('../dist/sqlite-driver.js', import.meta.url));

/** A stand-in for a build of better-sqlite3 whose connections open. */
class UsableBuild {
  close(): void {}
}

/** A stand-in for the classic build: chooseDriver never opens a connection with it. */
const CLASSIC = { classic: true };

/**
 * A `load` in which the Node-API build is `nodeApi`, or missing when `nodeApi` is an error to
 * throw; both builds at made-up versions.
 */
function loader(nodeApi: unknown): { load: (name: string) => unknown; loaded: string[] } {
  const loaded: string[] = [];
  const load = (name: string): unknown => {
    loaded.push(name);
    if (name === NODE_API_PACKAGE) {
      if (nodeApi instanceof Error) throw nodeApi;
      return nodeApi;
    }
    if (name === `${NODE_API_PACKAGE}/package.json`) return { version: '13.2.0' };
    if (name === 'better-sqlite3') return CLASSIC;
    if (name === 'better-sqlite3/package.json') return { version: '12.11.1' };
    throw new Error(`unexpected module ${name}`);
  };
  return { load, loaded };
}

function notInstalled(): Error {
  return Object.assign(new Error(`Cannot find module '${NODE_API_PACKAGE}'`), {
    code: 'MODULE_NOT_FOUND',
  });
}

describe('chooseDriver', () => {
  it('keeps the classic build on Node 20, whose process the Node-API build crashes, even when installed', () => {
    const { load, loaded } = loader(UsableBuild);
    const chosen = chooseDriver('20.19.0', load);
    expect(chosen.driver).toEqual({ package: 'better-sqlite3', version: '12.11.1' });
    expect(chosen.Database).toBe(CLASSIC);
    expect(loaded).not.toContain(NODE_API_PACKAGE);
  });

  it(`takes the Node-API build from Node ${NODE_API_FROM_MAJOR} when it is installed and opens a connection`, () => {
    for (const node of ['22.0.0', '24.21.0']) {
      const chosen = chooseDriver(node, loader(UsableBuild).load);
      expect(chosen.driver).toEqual({ package: NODE_API_PACKAGE, version: '13.2.0' });
      expect(chosen.Database).toBe(UsableBuild);
    }
  });

  it('falls back to the classic build where the Node-API build is not installed (npm --omit=optional)', () => {
    const chosen = chooseDriver('24.21.0', loader(notInstalled()).load);
    expect(chosen.driver.package).toBe('better-sqlite3');
    expect(chosen.Database).toBe(CLASSIC);
  });

  it('warns where it must keep the classic build on a Node.js that aborts with it (24.19 on), and only there', () => {
    const warning = (node: string) =>
      chooseDriver(node, loader(notInstalled()).load).driver.warning;
    expect(warning('24.19.0')).toMatch(
      /^better-sqlite3 12\.11\.1 on Node\.js 24\.19\.0 may abort the process .*run npm ci with this Node\.js/,
    );
    expect(warning('24.21.3')).toBeDefined();
    expect(warning('24.18.1')).toBeUndefined();
    expect(warning('22.21.0')).toBeUndefined();
    expect(chooseDriver('20.19.0', loader(UsableBuild).load).driver.warning).toBeUndefined();
    expect(chooseDriver('24.21.0', loader(UsableBuild).load).driver.warning).toBeUndefined();
  });

  it('falls back to the classic build where the Node-API build has no binary for this platform', () => {
    const noBinary = function NoBinary() {
      throw new Error('Could not locate the bindings file');
    };
    const chosen = chooseDriver('24.21.0', loader(noBinary).load);
    expect(chosen.driver.package).toBe('better-sqlite3');
  });

  it('lets any other failure to load the Node-API build through, rather than hide it', () => {
    const broken = new SyntaxError('Unexpected token');
    expect(() => chooseDriver('24.21.0', loader(broken).load)).toThrow(broken);
  });
});

describe('the driver this process runs on', () => {
  it(`is the Node-API build from Node ${NODE_API_FROM_MAJOR} on (npm installs it there), the classic one before`, () => {
    const major = Number.parseInt(process.versions.node, 10);
    expect(sqliteDriver.package).toBe(
      major >= NODE_API_FROM_MAJOR ? NODE_API_PACKAGE : 'better-sqlite3',
    );
  });

  it('frees thousands of statements between awaits and exits cleanly (better-sqlite3 12 aborts so from Node 24.19)', () => {
    // A collection run from a microtask (after an await) frees the statements with no Node
    // environment current: better-sqlite3 12 then fails Node's check and the process aborts.
    const script = `
      import { Database } from ${JSON.stringify(DRIVER)};
      const db = new Database(':memory:');
      let rows = 0;
      for (let n = 0; n < 20000; n++) {
        await null;
        rows += db.prepare('SELECT ? AS n').all(n).length;
      }
      db.close();
      console.log(rows);
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '--eval', script], {
      encoding: 'utf8',
    });
    expect({ status: run.status, signal: run.signal, stderr: run.stderr }).toEqual({
      status: 0,
      signal: null,
      stderr: '',
    });
    expect(run.stdout.trim()).toBe('20000');
  });
});
