import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every `.ts` file under `dir`, as a path relative to it. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.ts'),
  );
}

/**
 * The first file of `src/` whose build in `dist/` is missing or older than it, if any. Tests run
 * `src/` through vitest, but the writer thread and the CLI run from `dist/`: a test run after an
 * edit without a build would mix the two.
 */
export function staleBuild(root = ROOT): string | undefined {
  const src = join(root, 'src');
  for (const file of sources(src)) {
    const built = join(root, 'dist', file.replace(/\.ts$/, '.js'));
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(src, file)).mtimeMs)
      return relative(root, join(src, file));
  }
  return undefined;
}

/** vitest's global setup: build `dist/` first when any of it is older than `src/`. */
export function setup(): void {
  const stale = staleBuild();
  if (stale === undefined) return;
  console.log(`dist/ is older than ${stale}: running npm run build first`);
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}
