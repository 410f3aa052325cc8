import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import {
  ConfigError,
  type ConfigInputs,
  type JobConfig,
  loadJobConfig,
} from '../../src/config/index.js';

/** Key values the tests hand in; no message may ever contain one. */
export const SECRETS = ['sk_test_file_key_4711', 'sk_test_env_key_0815', 'sk_test_us_key_1234'];
export const [FILE_KEY, ENV_KEY, US_KEY] = SECRETS as [string, string, string];

/** A real (self-signed, P-256) CA certificate: the loader parses what a CA file holds. */
export const PEM = [
  '-----BEGIN CERTIFICATE-----',
  'MIIBjjCCATOgAwIBAgIUKgyS1UVEamBUuxA1OkIuiCNxRnkwCgYIKoZIzj0EAwIw',
  'GzEZMBcGA1UEAwwQY2FyZHN5bmMgdGVzdCBDQTAgFw0yNjExMjIxMDAyMzVaGA8y',
  'MTI2MTAyOTEwMDIzNVowGzEZMBcGA1UEAwwQY2FyZHN5bmMgdGVzdCBDQTBZMBMG',
  'ByqGSM49AgEGCCqGSM49AwEHA0IABEM96wG7PvnZQgfQqQDue7kebdugzylGYKb4',
  '2h+lMcctPQytMY0hNHfc9eOA9TLqGGHZYeeSOaCS7l8xBc4hX76jUzBRMB0GA1Ud',
  'DgQWBBQqxUal5kvPpOMUSkbBt/6PxarKMzAfBgNVHSMEGDAWgBQqxUal5kvPpOMU',
  'SkbBt/6PxarKMzAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0kAMEYCIQDZ',
  '0L/+EDl1at5uIaXcA8TmIbfUrZdqVn0VGPXQdpsoWQIhAKzMqxFjn+ml71TSf8+i',
  'fT0GKMw1Gibhio95bcOAPF8L',
  '-----END CERTIFICATE-----',
  '',
].join('\n');

/** A real temp directory per test, removed in `afterEach` through `cleanup`. */
export class ConfigFixture {
  readonly dir: string;

  private constructor(dir: string) {
    this.dir = dir;
  }

  static async create(): Promise<ConfigFixture> {
    return new ConfigFixture(await mkdtemp(join(tmpdir(), 'cardsync-config-')));
  }

  /** Write `text` to `relative` (folders made) and return its absolute path. */
  async file(relative: string, text: string, mode?: number): Promise<string> {
    const path = join(this.dir, relative);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
    if (mode !== undefined) await chmod(path, mode);
    return path;
  }

  /** Write a JSON config file and return its absolute path. */
  async config(content: unknown, relative = 'cardsync.json'): Promise<string> {
    return this.file(relative, JSON.stringify(content, null, 2));
  }

  inputs(
    flags: ConfigInputs['flags'] = {},
    env: ConfigInputs['env'] = {},
    requireUpstream = true,
  ): ConfigInputs {
    return { env, cwd: this.dir, flags, requireUpstream };
  }

  load(flags: ConfigInputs['flags'] = {}, env: ConfigInputs['env'] = {}): Promise<JobConfig> {
    return loadJobConfig(this.inputs(flags, env));
  }

  async cleanup(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * Expect a ConfigError for `key` whose one-line message starts with the key, matches `pattern`
 * and holds none of the test keys.
 */
export async function expectConfigError(
  loading: Promise<unknown>,
  key: string,
  pattern: RegExp,
): Promise<ConfigError> {
  const error = await loading.then(
    () => expect.fail(`expected a ConfigError for ${key}`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  const configError = error as ConfigError;
  expect(configError.code).toBe('CONFIG_INVALID');
  expect(configError.key).toBe(key);
  expect(configError.message.startsWith(`${key}: `), configError.message).toBe(true);
  expect(configError.message).toMatch(pattern);
  expect(configError.message).not.toMatch(/[\r\n]/);
  for (const secret of SECRETS) expect(configError.message).not.toContain(secret);
  return configError;
}
