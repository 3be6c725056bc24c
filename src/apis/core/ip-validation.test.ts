import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FieldError } from '../../apimachinery/errors.js';
import { endpoints } from './misc.js';
import { pods as pod } from './pod.js';
import { discoveryKinds } from '../discovery/index.js';
import { productName, setFlavor } from '../../naming/index.js';

/** The detail without kube's `Invalid value: "...": ` prefix. */
const render = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail.replace(/^Invalid value: "[^"]*": /, '')}`);

test('Endpoints refuse unspecified, loopback, link-local and link-local multicast addresses, and names', () => {
  const ep = (ip: string, kind = 'addresses') => ({ metadata: { name: 'x', namespace: 'ns' }, subsets: [{ [kind]: [{ ip }], ports: [{ port: 80 }] }] });
  const cases: [string, string[]][] = [
    ['10.0.0.1', []],
    ['192.0.2.7', []],
    ['127.0.0.1', ['subsets[0].addresses[0].ip: may not be in the loopback range (127.0.0.0/8)']],
    ['127.1.2.3', ['subsets[0].addresses[0].ip: may not be in the loopback range (127.0.0.0/8)']],
    ['::ffff:127.0.0.1', ['subsets[0].addresses[0].ip: may not be in the loopback range (127.0.0.0/8)']],
    ['::1', ['subsets[0].addresses[0].ip: may not be in the loopback range (127.0.0.0/8)']],
    ['0.0.0.0', ['subsets[0].addresses[0].ip: may not be unspecified (0.0.0.0)']],
    ['169.254.169.254', ['subsets[0].addresses[0].ip: may not be in the link-local range (169.254.0.0/16)']],
    ['fe80::1', ['subsets[0].addresses[0].ip: may not be in the link-local range (169.254.0.0/16)']],
    ['224.0.0.5', ['subsets[0].addresses[0].ip: may not be in the link-local multicast range (224.0.0.0/24)']],
    ['metadata.google.internal', ['subsets[0].addresses[0].ip: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)', 'subsets[0].addresses[0].ip: must be a valid IP address']],
  ];
  for (const [ip, want] of cases) assert.deepEqual(render(endpoints.validate!(ep(ip))), want, ip);
  assert.deepEqual(render(endpoints.validate!(ep('127.0.0.1', 'notReadyAddresses'))), ['subsets[0].notReadyAddresses[0].ip: may not be in the loopback range (127.0.0.0/8)']);
  // The API server's own Endpoints name the address it serves on (its name follows the flavor).
  for (const flavor of ['kubernetes', 'orch'] as const) {
    setFlavor(flavor);
    assert.deepEqual(render(endpoints.validate!({ ...ep('127.0.0.1'), metadata: { name: productName(), namespace: 'default' } })), [], flavor);
    assert.equal(render(endpoints.validate!({ ...ep('127.0.0.1'), metadata: { name: productName(), namespace: 'other' } })).length, 1, flavor);
  }
});

test('EndpointSlice addresses match their address type', () => {
  const slice = (addressType: string, address: string) => ({ metadata: { name: 's', namespace: 'ns' }, addressType, endpoints: [{ addresses: [address] }] });
  const v = discoveryKinds.EndpointSlice!.validate!;
  assert.deepEqual(render(v(slice('IPv4', '10.1.2.3'))), []);
  assert.deepEqual(render(v(slice('IPv4', 'example.com'))), ['endpoints[0].addresses[0]: must be a valid IPv4 address']);
  assert.deepEqual(render(v(slice('IPv4', 'fd00::1'))), ['endpoints[0].addresses[0]: must be a valid IPv4 address']);
  assert.deepEqual(render(v(slice('IPv6', '10.1.2.3'))), ['endpoints[0].addresses[0]: must be a valid IPv6 address']);
  assert.deepEqual(render(v(slice('FQDN', 'localhost'))), ['endpoints[0].addresses[0]: should be a domain with at least two segments separated by dots']);
  assert.deepEqual(render(v(slice('FQDN', 'api.example.com'))), []);
});

test('a pod status IP must be an IP address', () => {
  const withIP = (status: Record<string, unknown>) => ({ metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c', image: 'x' }] }, status });
  const statusErrors = (o: Parameters<NonNullable<typeof pod.validate>>[0]): string[] => render(pod.validate!(o)).filter((e) => e.startsWith('status.'));
  assert.deepEqual(statusErrors(withIP({ podIP: '127.1' })), ['status.podIPs[0]: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
  assert.deepEqual(statusErrors(withIP({ podIPs: [{ ip: '10.0.0.1' }, { ip: 'nope' }] })), ['status.podIPs[1]: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
  assert.deepEqual(statusErrors(withIP({ podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }] })), []);
});
