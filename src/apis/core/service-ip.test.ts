import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceIPRange, formatIP, parseIP, parsePortRange, parseServiceClusterIPRanges, portRangeString } from './service-ip.js';

test('IPv6 text is parsed and printed in Go canonical form', () => {
  const ip = (s: string): string => formatIP(parseIP(s)!);
  assert.equal(ip('2001:DB8:0:0:0:0:0:1'), '2001:db8::1');
  assert.equal(ip('fd00:0:0:1:0:0:0:0'), 'fd00:0:0:1::');
  assert.equal(ip('::'), '::');
  assert.equal(ip('1:0:2:0:0:3:0:0'), '1:0:2::3:0:0');
  assert.equal(ip('::ffff:10.1.2.3'), '10.1.2.3');
  assert.equal(parseIP('10.0.0.300'), undefined);
  assert.equal(parseIP('x'), undefined);
});

test('an IPv4 range hands out neither the network nor the broadcast address', () => {
  const r = new ServiceIPRange('10.0.0.7/24');
  assert.equal(r.cidr, '10.0.0.0/24');
  assert.equal(r.size, 254);
  assert.equal(r.at(0), '10.0.0.1');
  assert.equal(r.at(253), '10.0.0.254');
  assert.equal(r.offsetOf('10.0.0.0'), undefined);
  assert.equal(r.offsetOf('10.0.0.255'), undefined);
  assert.equal(r.offsetOf('10.0.1.1'), undefined);
  assert.equal(r.offsetOf('10.0.0.10'), 9);
  // min(max(16, 256/16), 256)
  assert.equal(r.staticOffset, 16);
  assert.equal(new ServiceIPRange('10.96.0.0/12').staticOffset, 256);
  assert.equal(new ServiceIPRange('10.0.0.0/28').staticOffset, 0);
});

test('an IPv6 range is capped at 65536 addresses', () => {
  const r = new ServiceIPRange('fd00::/64');
  assert.equal(r.family, 'IPv6');
  assert.equal(r.size, 65535);
  assert.equal(r.at(0), 'fd00::1');
  assert.equal(r.offsetOf('fd00::ffff'), 65534);
  assert.equal(r.offsetOf('fd00::1:0'), undefined);
});

test('the flags: one or two CIDRs of different families, and port ranges', () => {
  assert.deepEqual(parseServiceClusterIPRanges('10.0.0.0/24,fd00::/108').map((r) => r.family), ['IPv4', 'IPv6']);
  assert.throws(() => parseServiceClusterIPRanges('10.0.0.0/24,10.1.0.0/24'), /different IP families/);
  assert.throws(() => parseServiceClusterIPRanges('10.0.0.0/33'), /invalid CIDR address: 10.0.0.0\/33/);
  assert.deepEqual(parsePortRange('30000-32767'), { base: 30000, size: 2768 });
  assert.deepEqual(parsePortRange('30000+10'), { base: 30000, size: 11 });
  assert.equal(portRangeString(parsePortRange('8080')), '8080-8080');
  assert.throws(() => parsePortRange('40000-30000'), /invalid port range/);
  assert.throws(() => parsePortRange('low-high'), /unable to parse/);
});
