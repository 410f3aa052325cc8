import { existsSync, readFileSync } from 'node:fs';

/**
 * The package version, read once from the nearest package.json above this module (`src/`,
 * `dist/`, or a compiled copy such as the benchmarks' one level deeper).
 */
export const VERSION: string = (() => {
  for (const relative of ['../package.json', '../../package.json']) {
    const url = new URL(relative, import.meta.url);
    if (existsSync(url))
      return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
  }
  return '0.0.0';
})();
