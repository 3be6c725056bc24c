// Addresses of this machine for tests of what the proxies and the aggregator may dial.
import { networkInterfaces } from 'node:os';

/**
 * A non-loopback IPv4 address of this machine: a target the address rules allow, still on
 * this host (traffic to it never leaves the machine). Undefined where there is none.
 */
export function externalIPv4(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
}
