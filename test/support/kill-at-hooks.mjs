/**
 * A crash at a known point, without a hook in the production code: loaded with
 * `node --import <this file>`, it wraps one function of `node:fs` and sends the process a signal
 * (SIGKILL by default) on the Nth call whose path arguments match, before or after the call runs.
 * `CARDSYNC_TEST_KILL_AT` = `<fs function>:<before|after>:<regex on a path's base name>[:<N>[:<signal>]]`,
 * e.g. `renameSync:after:^2\d{7}T` (the report folder renamed into place, the findings not yet
 * committed). `syncBuiltinESMExports` makes the CLI's `import { renameSync } from 'node:fs'`
 * see the wrapper.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { basename } from 'node:path';

const spec = process.env.CARDSYNC_TEST_KILL_AT;
if (spec) {
  const [name, when, pattern, nth = '1', signal = 'SIGKILL'] = spec.split(':');
  const match = new RegExp(pattern);
  const original = fs[name];
  let seen = 0;
  const hits = (args) =>
    args.some((arg) => typeof arg === 'string' && match.test(basename(arg))) &&
    ++seen === Number(nth);
  fs[name] = function killAt(...args) {
    const hit = hits(args);
    if (hit && when === 'before') process.kill(process.pid, signal);
    const result = original.apply(this, args);
    if (hit && when === 'after') process.kill(process.pid, signal);
    return result;
  };
  syncBuiltinESMExports();
}
