import { describe, expect, it } from 'vitest';
import { bypassesProxy } from '../../src/api/proxy-route.js';

const around = (url: string, noProxy = '') => bypassesProxy(new URL(url), noProxy);

describe('bypassesProxy: which upstreams go around the proxy', () => {
  it('never sends a loopback upstream through it, whatever NO_PROXY says', () => {
    for (const url of [
      'https://localhost:8443',
      'https://LOCALHOST.:8443',
      'https://sandbox.localhost',
      'https://127.0.0.1:8443',
      'https://127.8.9.10',
      'https://[::1]:8443',
      'https://[::ffff:127.0.0.1]',
    ])
      expect(around(url), url).toBe(true);
    for (const url of ['https://localhost.example.com', 'https://128.0.0.1', 'https://[::2]'])
      expect(around(url), url).toBe(false);
  });

  it('sends every other upstream through it when NO_PROXY is empty', () => {
    expect(around('https://cards.example.com')).toBe(false);
    expect(around('https://10.1.2.3')).toBe(false);
  });

  it('goes around for *, a host, or a parent domain however written, in any case', () => {
    expect(around('https://cards.example.com', '*')).toBe(true);
    for (const entry of ['cards.example.com', 'example.com', '.example.com', '*.example.com'])
      expect(around('https://cards.example.com', `other.test, ${entry}`), entry).toBe(true);
    expect(around('https://cards.example.com', 'EXAMPLE.COM')).toBe(true);
    expect(around('https://cards.example.com', 'ample.com')).toBe(false);
    expect(around('https://cards.example.com', 'cards.example.com.evil')).toBe(false);
  });

  it('splits the list on commas and white space', () => {
    expect(around('https://b.test', 'a.test b.test')).toBe(true);
    expect(around('https://b.test', 'a.test,,b.test')).toBe(true);
  });

  it('matches an entry with a port on that port only, the default 443 included', () => {
    expect(around('https://cards.example.com:8443', 'cards.example.com:8443')).toBe(true);
    expect(around('https://cards.example.com', 'cards.example.com:8443')).toBe(false);
    expect(around('https://cards.example.com', 'cards.example.com:443')).toBe(true);
  });

  it('matches addresses exactly and CIDR blocks by containment, IPv4 and IPv6', () => {
    expect(around('https://10.1.2.3', '10.1.2.3')).toBe(true);
    expect(around('https://10.1.2.3', '10.1.2.4')).toBe(false);
    expect(around('https://10.1.2.3', '10.0.0.0/8')).toBe(true);
    expect(around('https://11.1.2.3', '10.0.0.0/8')).toBe(false);
    expect(around('https://[2001:db8::5]', '2001:db8::/32')).toBe(true);
    expect(around('https://[2001:db8::5]', '2001:0db8:0:0::5')).toBe(true);
    expect(around('https://[2001:db8::5]:8443', '[2001:db8::5]:8443')).toBe(true);
    expect(around('https://cards.example.com', '10.0.0.0/8')).toBe(false);
    expect(around('https://10.1.2.3', '10.0.0.0/99')).toBe(false);
  });
});
