/**
 * `node --import ./loaded-modules-probe.mjs dist/cli/main.js ...` writes every module the process
 * loaded to the file named by LOADED_MODULES_FILE, one per line: ES modules (file: URLs) as they
 * load, through loaded-modules-hooks.mjs, and CommonJS modules (paths) from require.cache at
 * exit, which also holds those that other CommonJS modules required, which the hooks do not see.
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.LOADED_MODULES_FILE;
if (!file) throw new Error('loaded-modules-probe.mjs: set LOADED_MODULES_FILE');
register('./loaded-modules-hooks.mjs', import.meta.url, { data: { file } });
const require = createRequire(import.meta.url);
process.on('exit', () => {
  appendFileSync(
    file,
    Object.keys(require.cache)
      .map((path) => `${path}\n`)
      .join(''),
  );
});
