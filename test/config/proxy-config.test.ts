import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeConfig, loadJobConfig } from '../../src/config/index.js';
import { ConfigFixture, ENV_KEY, expectConfigError } from './config-fixture.js';

const BASE = { CARDSYNC_BASE_URL: 'https://issuer.example.com', CARDSYNC_API_KEY: ENV_KEY };
const PASSWORD = 'pr0xy-p4ss';

describe('the egress proxy from HTTPS_PROXY and the like', () => {
  let f: ConfigFixture;
  beforeEach(async () => {
    f = await ConfigFixture.create();
  });
  afterEach(async () => f.cleanup());

  it('has none when no proxy variable is set, or each is empty', async () => {
    expect((await f.load({}, BASE)).proxy).toBeUndefined();
    const empty = { HTTPS_PROXY: '', https_proxy: ' ', HTTP_PROXY: '', http_proxy: '' };
    expect((await f.load({}, { ...BASE, ...empty })).proxy).toBeUndefined();
  });

  it('reads https_proxy over HTTPS_PROXY over http_proxy over HTTP_PROXY, no_proxy over NO_PROXY', async () => {
    const all = {
      https_proxy: 'http://lower-https:3128',
      HTTPS_PROXY: 'http://upper-https:3128',
      http_proxy: 'http://lower-http:3128',
      HTTP_PROXY: 'http://upper-http:3128',
      no_proxy: '.lower.example',
      NO_PROXY: '.upper.example',
    };
    const read = async (env: Record<string, string>) => {
      const { proxy } = await f.load({}, { ...BASE, ...env });
      return { shown: proxy?.shown, from: proxy?.from, noProxy: proxy?.noProxy };
    };
    expect(await read(all)).toEqual({
      shown: 'http://lower-https:3128',
      from: 'https_proxy',
      noProxy: '.lower.example',
    });
    expect(await read({ ...all, https_proxy: '', no_proxy: '' })).toEqual({
      shown: 'http://upper-https:3128',
      from: 'HTTPS_PROXY',
      noProxy: '.upper.example',
    });
    expect(await read({ http_proxy: '', HTTP_PROXY: 'http://upper-http:3128' })).toEqual({
      shown: 'http://upper-http:3128',
      from: 'HTTP_PROXY',
      noProxy: '',
    });
  });

  it('reads a proxy without a scheme as http://, as curl does', async () => {
    const { proxy } = await f.load({}, { ...BASE, HTTPS_PROXY: 'proxy.corp.example:3128' });
    expect(proxy?.shown).toBe('http://proxy.corp.example:3128');
    expect(proxy?.url).toBe('http://proxy.corp.example:3128/');
  });

  it('keeps the credentials for the tunnel only: neither the logged configuration nor JSON shows them', async () => {
    const env = { ...BASE, HTTPS_PROXY: `http://svc-cardsync:${PASSWORD}@proxy.corp.example:3128` };
    const config = await f.load({}, env);
    expect(config.proxy?.url).toBe(`http://svc-cardsync:${PASSWORD}@proxy.corp.example:3128/`);
    const described = describeConfig(config);
    expect(described.proxy).toEqual({
      shown: 'http://proxy.corp.example:3128',
      from: 'HTTPS_PROXY',
      noProxy: '',
    });
    for (const text of [JSON.stringify(described), JSON.stringify(config)]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain('svc-cardsync');
    }
  });

  it('refuses a proxy that is not http:// or https://, naming the variable, never quoting the value', async () => {
    for (const value of [`socks5://u:${PASSWORD}@proxy:1080`, `http://u:${PASSWORD}@[bad`]) {
      const error = await expectConfigError(
        f.load({}, { ...BASE, https_proxy: value }),
        'https_proxy',
        /expected a proxy URL such as http:\/\/proxy\.example:3128/,
      );
      expect(error.message).not.toContain(PASSWORD);
    }
  });

  it('refuses credentials that are not percent-encoded, naming the variable, never quoting them', async () => {
    const error = await expectConfigError(
      f.load({}, { ...BASE, HTTPS_PROXY: `http://svc:${PASSWORD}%zz@proxy:3128` }),
      'HTTPS_PROXY',
      /expected its user and password percent-encoded/,
    );
    expect(error.message).not.toContain(PASSWORD);
  });

  it('is not read by a command that does not talk to the upstream', async () => {
    const config = await loadJobConfig(f.inputs({}, { HTTPS_PROXY: 'socks5://proxy:1080' }, false));
    expect(config.proxy).toBeUndefined();
  });
});
