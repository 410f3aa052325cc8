import { X509Certificate } from 'node:crypto';
import { isIPv6 } from 'node:net';
import * as tls from 'node:tls';

/**
 * Node's `tls.checkServerIdentity`, except that an IPv6 address the certificate names among its
 * IP addresses is accepted. Node 22.23 (and 24.17 to 24.19) normalise the host as a domain name
 * before matching, which turns an IPv6 address into '' and refuses every certificate for it
 * (nodejs/node#64145): `https://[::1]:8443` failed with ERR_TLS_CERT_ALTNAME_INVALID. The
 * address is matched by OpenSSL (`X509Certificate.checkIP`, SAN entries only); any other host,
 * and an address the certificate does not name, get Node's own check and error.
 * @example new Agent({ connect: { ca, checkServerIdentity } })
 */
export function checkServerIdentity(host: string, cert: tls.PeerCertificate): Error | undefined {
  if (isIPv6(host) && new X509Certificate(cert.raw).checkIP(host) !== undefined) return undefined;
  return tls.checkServerIdentity(host, cert);
}
