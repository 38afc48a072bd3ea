/**
 * Where forwarding may post: http or https, loopback and private addresses included (the merchant's own
 * services), never a link-local or cloud metadata address, which would hand a change (and the network's
 * trust) to the host's metadata service. Checked when a subscription is saved, and again on the address a
 * name resolves to when each connection is made, so a name that later resolves elsewhere is refused too.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const REFUSED = new BlockList();
REFUSED.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, AWS/GCP/Azure/Oracle metadata 169.254.169.254
REFUSED.addSubnet('fe80::', 10, 'ipv6'); // link-local
REFUSED.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
REFUSED.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6
REFUSED.addAddress('0.0.0.0', 'ipv4'); // reaches the host itself under another name
REFUSED.addAddress('::', 'ipv6');

const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.com',
]);

// An IPv4 address written inside IPv6 (`::ffff:169.254.169.254`) is checked as the IPv4 address.
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1] as string, family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Whether forwarding refuses to connect to this IP address. */
export function isRefusedAddress(address: string): boolean {
  const plain = unmapped(address);
  return REFUSED.check(plain.address, plain.family);
}

/** Why `url` cannot be a subscription's target, or null when it can. */
export function targetProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http or https URL';
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  const host = parsed.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (METADATA_NAMES.has(host)) return 'must not be a cloud metadata address';
  if (isIP(host) && isRefusedAddress(host)) return 'must not be a link-local or metadata address';
  return null;
}

/** The error a connection to a refused address fails with (its outcome is `refused_address`). */
export class RefusedAddressError extends Error {
  readonly code = 'ERR_REFUSED_ADDRESS';
}

/** A `lookup` for http.request that refuses a name resolving to a refused address (DNS rebinding). */
export const lookupRefusingLinkLocal: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const refused = addresses.find((entry) => isRefusedAddress(entry.address));
    if (refused || addresses.length === 0)
      return callback(new RefusedAddressError('the target resolves to a refused address'), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0] as LookupAddress;
    callback(null, first.address, first.family);
  });
};
