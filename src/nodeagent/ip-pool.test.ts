import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bigIntToIp, ipToBigInt, IPPool, IPPools, parseCidr } from './ip-pool.js';

test('addresses from a CIDR: the first after the network, released ones first, used ones skipped', () => {
  const pool = new IPPool(parseCidr('10.244.1.0/24')!);
  assert.equal(pool.get(), '10.244.1.1');
  pool.use('10.244.1.2');
  pool.use('192.168.0.1'); // outside: ignored
  assert.equal(pool.get(), '10.244.1.3');
  pool.put('10.244.1.1');
  assert.equal(pool.get(), '10.244.1.1');
  assert.equal(pool.inUse(), 3);
  assert.equal(new IPPool(parseCidr('10.0.0.7/30')!).get(), '10.0.0.5', 'the network address is the base');
});

test('IPv6 ranges and the shortest text form', () => {
  const pool = new IPPool(parseCidr('fd00:10:244::/64')!);
  assert.equal(pool.get(), 'fd00:10:244::1');
  assert.equal(bigIntToIp(ipToBigInt('2001:db8:0:0:1:0:0:1')!, true), '2001:db8::1:0:0:1');
  assert.equal(bigIntToIp(ipToBigInt('::')!, true), '::');
  assert.equal(ipToBigInt('::ffff:10.0.0.1'), 0xffff0a000001n);
  assert.equal(ipToBigInt('1:2:3'), undefined);
  assert.equal(ipToBigInt('1::2::3'), undefined);
});

test('a CIDR that does not parse has no pool', () => {
  const pools = new IPPools();
  for (const bad of ['10.0.0.0', '10.0.0.0/33', '10.0.0.0/x', 'nope/8', '::/129', '__proto__']) assert.equal(pools.pool(bad), undefined, bad);
  assert.equal(pools.pool('10.0.0.0/24'), pools.pool('10.0.0.0/24'));
});
