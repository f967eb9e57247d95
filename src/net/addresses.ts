import { isIPv4, isIPv6 } from 'node:net';

/**
 * IP classification for the SSRF guard: is an address a public, globally routable unicast address that an
 * outbound fetch may reach? Anything we cannot parse is not public. The IPv6 side is an allow-list (only
 * 2000::/3 global unicast, minus special blocks) because new special-purpose ranges keep being assigned
 * outside it; forms that embed an IPv4 address (mapped, NAT64, 6to4) are judged by that IPv4 address.
 */

/** [network, prefix length] pairs; IPv4 ranges that are never a legitimate public fetch target. */
const V4_BLOCKED: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata endpoints
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation TEST-NET-1
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation TEST-NET-2
  ['203.0.113.0', 24], // documentation TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including the 255.255.255.255 broadcast
];

/** [network, prefix length] pairs inside 2000::/3 that are still not public. */
const V6_BLOCKED_GLOBAL: ReadonlyArray<readonly [string, number]> = [
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID; refused wholesale
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
];

function v4ToInt(ip: string): number {
  const parts = ip.split('.').map(Number);
  return (((parts[0] ?? 0) << 24) | ((parts[1] ?? 0) << 16) | ((parts[2] ?? 0) << 8) | (parts[3] ?? 0)) >>> 0;
}

/** Expands a valid IPv6 text form (already checked by isIPv6) into 8 16-bit groups. */
function v6ToGroups(ip: string): number[] {
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    // A trailing dotted quad stands for the last two groups: rewrite it as hex before splitting.
    const v4 = v4ToInt(text.slice(lastColon + 1));
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const fill = new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...fill, ...right];
}

function v6ToBigInt(groups: number[]): bigint {
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

const V4_RANGES = V4_BLOCKED.map(([net, bits]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { net: (v4ToInt(net) & mask) >>> 0, mask };
});

const V6_RANGES = V6_BLOCKED_GLOBAL.map(([net, bits]) => {
  const mask = ((1n << BigInt(bits)) - 1n) << BigInt(128 - bits);
  return { net: v6ToBigInt(v6ToGroups(net)) & mask, mask };
});

function isPublicV4(ip: string): boolean {
  const n = v4ToInt(ip);
  return !V4_RANGES.some((r) => (n & r.mask) >>> 0 === r.net);
}

function groupsToV4(hi: number, lo: number): string {
  return `${hi >>> 8}.${hi & 0xff}.${lo >>> 8}.${lo & 0xff}`;
}

function isPublicV6(ip: string): boolean {
  const g = v6ToGroups(ip);
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  // ::ffff:a.b.c.d reaches the IPv4 host on a dual-stack socket.
  if (upperZero && g5 === 0xffff) return isPublicV4(groupsToV4(g6, g7));
  // NAT64 well-known prefix 64:ff9b::/96: the gateway forwards to the embedded IPv4 address.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return isPublicV4(groupsToV4(g6, g7));
  }
  // 6to4 2002:a.b.c.d::/48 tunnels to the embedded IPv4 address.
  if (g0 === 0x2002) return isPublicV4(groupsToV4(g1, g2));
  // Only global unicast 2000::/3 can be public: this refuses ::, ::1, fc00::/7, fe80::/10, ff00::/8, etc.
  if ((g0 & 0xe000) !== 0x2000) return false;
  const n = v6ToBigInt(g);
  return !V6_RANGES.some((r) => (n & r.mask) === r.net);
}

/** True when `ip` (IPv4 dotted quad or IPv6 text, brackets allowed) is a public unicast address. */
export function isPublicAddress(ip: string): boolean {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (isIPv4(bare)) return isPublicV4(bare);
  // A zone id (fe80::1%eth0) only makes sense for link-local scopes: never public.
  if (bare.includes('%')) return false;
  if (isIPv6(bare)) return isPublicV6(bare);
  return false;
}
