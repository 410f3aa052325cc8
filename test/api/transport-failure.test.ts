import { describe, expect, it } from 'vitest';
import { classifyTransportError } from '../../src/api/transport-failure.js';

const coded = (code: string, cause?: unknown) => Object.assign(new Error(code), { code, cause });

describe('classifyTransportError', () => {
  it.each([
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
    ['UND_ERR_BODY_TIMEOUT', 'timeout'],
    ['ECONNRESET', 'network'],
    ['ECONNREFUSED', 'network'],
    ['UND_ERR_SOCKET', 'network'],
    ['EPIPE', 'network'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'tls'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['UND_MOCK_ERR_MOCK_NOT_MATCHED', 'unknown'],
  ])('sorts %s as %s', (code, kind) => {
    expect(classifyTransportError(coded(code))).toBe(kind);
  });

  it('looks into the cause chain, and calls a plain error unknown', () => {
    expect(classifyTransportError(coded('UND_ERR', coded('ECONNRESET')))).toBe('network');
    expect(classifyTransportError(new Error('boom'))).toBe('unknown');
    expect(classifyTransportError(undefined)).toBe('unknown');
  });
});
