import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/net/addresses.js';

// [address, expected public?] — each range is probed at its edges and just outside them.
const TABLE: ReadonlyArray<readonly [string, boolean]> = [
  // IPv4 public
  ['8.8.8.8', true],
  ['1.1.1.1', true],
  ['93.184.216.34', true],
  ['223.255.255.255', true],
  // 0.0.0.0/8
  ['0.0.0.0', false],
  ['0.255.255.255', false],
  ['1.0.0.0', true],
  // 10/8
  ['10.0.0.0', false],
  ['10.255.255.255', false],
  ['9.255.255.255', true],
  ['11.0.0.0', true],
  // 100.64/10 CGNAT
  ['100.63.255.255', true],
  ['100.64.0.0', false],
  ['100.127.255.255', false],
  ['100.128.0.0', true],
  // 127/8
  ['127.0.0.1', false],
  ['127.255.255.254', false],
  ['128.0.0.0', true],
  // 169.254/16
  ['169.254.169.254', false],
  ['169.253.255.255', true],
  ['169.255.0.0', true],
  // 172.16/12
  ['172.15.255.255', true],
  ['172.16.0.0', false],
  ['172.31.255.255', false],
  ['172.32.0.0', true],
  // 192.0.0/24, 192.0.2/24, 192.88.99/24, 192.168/16
  ['192.0.0.8', false],
  ['192.0.2.1', false],
  ['192.0.3.0', true],
  ['192.88.99.1', false],
  ['192.167.255.255', true],
  ['192.168.0.1', false],
  ['192.168.255.255', false],
  ['192.169.0.0', true],
  // 198.18/15 benchmarking, documentation ranges
  ['198.17.255.255', true],
  ['198.18.0.0', false],
  ['198.19.255.255', false],
  ['198.20.0.0', true],
  ['198.51.100.7', false],
  ['203.0.113.255', false],
  ['203.0.114.0', true],
  // multicast, reserved, broadcast
  ['224.0.0.1', false],
  ['239.255.255.255', false],
  ['240.0.0.1', false],
  ['255.255.255.255', false],
  // IPv6 public
  ['2001:4860:4860::8888', true],
  ['2606:4700:4700::1111', true],
  ['2a00:1450:4007:80e::200e', true],
  // IPv6 special
  ['::', false],
  ['::1', false],
  ['fc00::1', false],
  ['fdff:ffff::1', false],
  ['fe80::1', false],
  ['febf:ffff::1', false],
  ['fec0::1', false],
  ['ff02::1', false],
  ['2001:db8::1', false],
  ['2001:db8:ffff:ffff::1', false],
  ['2001:db9::1', true],
  ['2001::1', false], // Teredo
  ['2001:2::1', false], // benchmarking
  ['3fff::1', false],
  ['4000::1', false],
  ['1fff:ffff::1', false],
  ['100::1', false], // discard-only
  // IPv4-mapped and embedding forms
  ['::ffff:127.0.0.1', false],
  ['::ffff:7f00:1', false],
  ['::ffff:10.0.0.1', false],
  ['::ffff:169.254.169.254', false],
  ['::ffff:8.8.8.8', true],
  ['::ffff:808:808', true],
  ['::127.0.0.1', false], // deprecated IPv4-compatible
  ['64:ff9b::10.0.0.1', false],
  ['64:ff9b::7f00:1', false],
  ['64:ff9b::192.168.1.1', false],
  ['64:ff9b::8.8.8.8', true],
  ['64:ff9b:1::8.8.8.8', false], // local-use NAT64 prefix
  ['2002:a00:1::1', false], // 6to4 around 10.0.0.1
  ['2002:808:808::1', true], // 6to4 around 8.8.8.8
  // brackets, zone ids, garbage
  ['[::1]', false],
  ['[2001:4860:4860::8888]', true],
  ['fe80::1%eth0', false],
  ['localhost', false],
  ['', false],
  ['127.1', false],
  ['0x7f.0.0.1', false],
  ['2130706433', false],
  ['8.8.8.8.8', false],
];

describe('isPublicAddress', () => {
  it('has a table of at least 40 entries', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
  });

  it.each(TABLE)('%s -> public=%s', (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });
});
