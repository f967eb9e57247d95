import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

/**
 * A custom hostname in the one form it is stored and compared in: lower-case ASCII (IDNA: `bücher.example`
 * becomes `xn--bcher-kva.example`), no trailing dot. Returns the reason instead when it cannot be one: an
 * IP address, a port, a single label, anything that is not a DNS name.
 */
export function normalizeHostname(input: string): { hostname: string } | { problem: string } {
  const raw = input.trim().replace(/\.$/, '');
  if (raw === '') return { problem: 'hostname is required' };
  if (/[/:@?#\s\\[\]]/.test(raw)) {
    return { problem: 'hostname is a bare domain name: no scheme, port, path or IP address' };
  }
  if (isIP(raw)) return { problem: 'hostname must be a domain name, not an IP address' };
  const ascii = domainToASCII(raw);
  if (ascii === '') return { problem: 'hostname is not a valid international domain name' };
  // domainToASCII reads `1.2.3.4`-like forms (`0x7f.1`, `127.1`) as IPv4 and gives the dotted quad back.
  if (isIP(ascii) || /^[\d.]+$/.test(ascii)) {
    return { problem: 'hostname must be a domain name, not an IP address' };
  }
  if (
    !/^(?=.{4,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z][a-z0-9-]{0,61}[a-z0-9]|xn--[a-z0-9-]{1,59})$/.test(
      ascii,
    )
  ) {
    return { problem: 'hostname must be a domain name such as links.example.com' };
  }
  return { hostname: ascii };
}

/** True when `hostname` is the service's own host or a name under it: never an organization's domain. */
export function isServiceHost(hostname: string, baseUrl: string): boolean {
  const own = new URL(baseUrl).hostname.toLowerCase();
  return hostname === own || hostname.endsWith(`.${own}`);
}
