// The allocating services Store over the built-in definitions: cluster IPs, IP families,
// node ports, their release, several servers on one store, and the server's own Service.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResourceDefinitions } from '../../apis/definitions.js';
import { isApiError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { productName } from '../../naming/index.js';
import { MemoryStorage } from '../../storage/index.js';
import { buildResourceTable, type DefaultResourceTable } from '../table.js';
import { requestContext } from '../../testing/registry.js';
import type { RESTStore } from '../../rest/index.js';
import { ServiceAllocations } from './allocations.js';
import { ensureMasterService, installServiceAllocation, parsePortRange, parseServiceClusterIPRanges, type ServiceNetwork } from './index.js';

const ctx = requestContext();
const noDry = { dryRun: false };
const core = { group: '', version: 'v1' };

function network(cidrs = '10.0.0.0/24', ports = '30000-32767'): ServiceNetwork {
  return { ipRanges: parseServiceClusterIPRanges(cidrs), nodePorts: parsePortRange(ports) };
}

async function rejects(p: Promise<unknown>, code: number, message: string | RegExp): Promise<void> {
  try {
    await p;
  } catch (e) {
    assert.ok(isApiError(e), `expected an ApiError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return;
  }
  assert.fail(`expected a ${code} error`);
}

function svc(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec } };
}

type Spec = Record<string, unknown> & { ports?: Array<Record<string, unknown>> };
const specOf = (o: KubeObject): Spec => o.spec as Spec;

function server(storage: MemoryStorage, net: ServiceNetwork = network()): { table: DefaultResourceTable; services: RESTStore } {
  const table = buildResourceTable(builtinResourceDefinitions(), storage);
  installServiceAllocation(table, { storage, network: net });
  return { table, services: table.lookup(core, 'services')! };
}

describe('services Store', () => {
  test('records field ownership with the Store\'s clock, before allocation', async () => {
    const storage = new MemoryStorage();
    const fixed = new Date('2020-02-02T02:02:02Z');
    const table = buildResourceTable(builtinResourceDefinitions(), storage, { now: () => fixed });
    installServiceAllocation(table, { storage, network: network() });
    const created = await table.lookup(core, 'services')!.create!(ctx, 'default', svc('clocked'), { ...noDry, fieldManager: 'm' });
    const managed = created.metadata?.managedFields ?? [];
    assert.equal(managed.length, 1);
    assert.equal(managed[0]!.time, '2020-02-02T02:02:02Z');
    // The allocated address is the server's, owned by no manager.
    assert.ok(specOf(created).clusterIP);
    assert.doesNotMatch(JSON.stringify(managed[0]!.fieldsV1), /clusterIP/);
    await storage.close();
  });

  let storage: MemoryStorage;
  let table: DefaultResourceTable;
  let services: RESTStore;
  let allocations: ServiceAllocations;

  before(() => {
    storage = new MemoryStorage();
    ({ table, services } = server(storage));
    allocations = new ServiceAllocations(storage);
  });

  after(async () => {
    await table.stop();
    await storage.close();
  });

  test('a ClusterIP service gets an address above the static sub-range, its family and policy', async () => {
    const out = await services.create!(ctx, 'n', svc('a'), noDry);
    const spec = specOf(out);
    const ip = spec.clusterIP as string;
    const last = Number(ip.split('.')[3]);
    assert.ok(ip.startsWith('10.0.0.') && last > 16 && last < 255, ip);
    assert.deepEqual(spec.clusterIPs, [ip]);
    assert.deepEqual(spec.ipFamilies, ['IPv4']);
    assert.equal(spec.ipFamilyPolicy, 'SingleStack');
    assert.ok(await allocations.hasIP(ip));
  });

  test('a requested address is honoured once; taken or outside the range is 422', async () => {
    const out = await services.create!(ctx, 'n', svc('b', { clusterIP: '10.0.0.5' }), noDry);
    assert.deepEqual(specOf(out).clusterIPs, ['10.0.0.5']);
    await rejects(
      services.create!(ctx, 'n', svc('c', { clusterIP: '10.0.0.5' }), noDry),
      422,
      'Service "c" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.5"}: failed to allocate IP 10.0.0.5: provided IP is already allocated',
    );
    await rejects(
      services.create!(ctx, 'n', svc('c', { clusterIP: '10.1.0.5', clusterIPs: ['10.1.0.5'] }), noDry),
      422,
      'Service "c" is invalid: spec.clusterIPs: Invalid value: []string{"10.1.0.5"}: failed to allocate IP 10.1.0.5: the provided IP (10.1.0.5) is not in the valid range. The range of valid IPs is 10.0.0.0/24',
    );
    await rejects(
      services.create!(ctx, 'n', svc('c', { clusterIP: '10.0.0.255' }), noDry),
      422,
      /the provided IP \(10\.0\.0\.255\) is not in the valid range/,
    );
    await rejects(
      services.create!(ctx, 'n', svc('c', { ipFamilyPolicy: 'RequireDualStack' }), noDry),
      422,
      'Service "c" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
    );
    await rejects(
      services.create!(ctx, 'n', svc('c', { clusterIP: 'fd00::5' }), noDry),
      422,
      'Service "c" is invalid: spec.clusterIPs[0]: Invalid value: []string{"fd00::5"}: IPv6 is not configured on this cluster',
    );
  });

  test('headless and ExternalName services get no address', async () => {
    const headless = specOf(await services.create!(ctx, 'n', svc('h', { clusterIP: 'None' }), noDry));
    assert.deepEqual([headless.clusterIP, headless.clusterIPs, headless.ipFamilies, headless.ipFamilyPolicy], ['None', ['None'], ['IPv4'], 'SingleStack']);
    const bare = specOf(await services.create!(ctx, 'n', { metadata: { name: 'hs' }, spec: { clusterIP: 'None' } }, noDry));
    assert.deepEqual([bare.ipFamilies, bare.ipFamilyPolicy], [['IPv4', 'IPv6'], 'RequireDualStack']);
    const ext = specOf(await services.create!(ctx, 'n', { metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'example.com' } }, noDry));
    assert.deepEqual([ext.clusterIP, ext.clusterIPs, ext.ipFamilies, ext.ipFamilyPolicy], [undefined, undefined, undefined, undefined]);
  });

  test('NodePort services get node ports; requests are checked against the range and each other', async () => {
    const out = specOf(await services.create!(ctx, 'n', svc('np', { type: 'NodePort', ports: [{ port: 80, name: 'a' }, { port: 81, name: 'b', nodePort: 30080 }] }), noDry));
    const first = out.ports?.[0]?.nodePort as number;
    assert.ok(first >= 30000 && first <= 32767, String(first));
    assert.equal(out.ports?.[1]?.nodePort, 30080);
    assert.ok(await allocations.hasPort(30080));
    await rejects(
      services.create!(ctx, 'n', svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }), noDry),
      422,
      'Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
    );
    await rejects(
      services.create!(ctx, 'n', svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 8080 }] }), noDry),
      422,
      'Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    const lb = specOf(await services.create!(ctx, 'n', svc('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local' }), noDry));
    assert.ok((lb.ports?.[0]?.nodePort as number) >= 30000);
    assert.ok((lb.healthCheckNodePort as number) >= 30000);
    const noPorts = specOf(await services.create!(ctx, 'n', svc('lb2', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false }), noDry));
    assert.equal(noPorts.ports?.[0]?.nodePort, undefined);
  });

  test('delete frees the address and ports; a failed create gives back what it took', async () => {
    await services.create!(ctx, 'n', svc('d', { type: 'NodePort', clusterIP: '10.0.0.9', ports: [{ port: 80, nodePort: 31000 }] }), noDry);
    const gone = await services.delete!(ctx, 'n', 'd', noDry);
    assert.equal(gone.deleted, true);
    assert.equal(await allocations.hasIP('10.0.0.9'), false);
    assert.equal(await allocations.hasPort(31000), false);

    await rejects(services.create!(ctx, 'n', svc('bad', { clusterIP: '10.0.0.9', ports: [{ port: 70000 }] }), noDry), 422, /spec.ports\[0\].port/);
    assert.equal(await allocations.hasIP('10.0.0.9'), false);
    await services.create!(ctx, 'n', svc('d2', { clusterIP: '10.0.0.9' }), noDry);
    assert.equal(await allocations.hasIP('10.0.0.9'), true);
  });

  test('updates keep allocated values, allocate and free on type changes', async () => {
    const created = specOf(await services.create!(ctx, 'n', svc('u', { clusterIP: '10.0.0.11' }), noDry));
    assert.equal(created.clusterIP, '10.0.0.11');
    // A PUT that leaves out the address keeps it.
    const kept = await services.update!(ctx, 'n', 'u', () => svc('u', { sessionAffinity: 'ClientIP' }), noDry);
    assert.deepEqual(specOf(kept.object).clusterIPs, ['10.0.0.11']);

    const toNodePort = await services.update!(ctx, 'n', 'u', (cur) => ({ ...cur!, spec: { ...specOf(cur!), type: 'NodePort' } }), noDry);
    const np = specOf(toNodePort.object).ports?.[0]?.nodePort as number;
    assert.ok(await allocations.hasPort(np));
    const back = await services.update!(ctx, 'n', 'u', (cur) => ({ ...cur!, spec: { ...specOf(cur!), type: 'ClusterIP' } }), noDry);
    assert.equal(specOf(back.object).ports?.[0]?.nodePort, undefined);
    assert.equal(specOf(back.object).externalTrafficPolicy, undefined);
    assert.equal(await allocations.hasPort(np), false);

    const ext = await services.update!(ctx, 'n', 'u', (cur) => ({ ...cur!, spec: { ...specOf(cur!), type: 'ExternalName', externalName: 'example.com' } }), noDry);
    assert.equal(specOf(ext.object).clusterIP, undefined);
    assert.equal(specOf(ext.object).ipFamilies, undefined);
    assert.equal(await allocations.hasIP('10.0.0.11'), false);

    const again = await services.update!(ctx, 'n', 'u', (cur) => ({ ...cur!, spec: { ...specOf(cur!), type: 'ClusterIP', externalName: undefined } }), noDry);
    assert.ok(await allocations.hasIP(specOf(again.object).clusterIP as string));

    await rejects(
      services.update!(ctx, 'n', 'u', (cur) => ({ ...cur!, spec: { ...specOf(cur!), clusterIP: '10.0.0.12', clusterIPs: ['10.0.0.12'] } }), noDry),
      422,
      /spec.clusterIPs\[0\]: Invalid value: \[\]string\{"10.0.0.12"\}: may not change once set/,
    );
    assert.equal(await allocations.hasIP('10.0.0.12'), false);
  });

  test('dry run takes nothing', async () => {
    const dry = specOf(await services.create!(ctx, 'n', svc('dry', { type: 'NodePort' }), { dryRun: true }));
    assert.equal(dry.clusterIP, '10.0.0.0');
    assert.equal(dry.ports?.[0]?.nodePort, 32769);
    assert.equal(await allocations.hasPort(32769), false);
    const requested = specOf(await services.create!(ctx, 'n', svc('dry', { clusterIP: '10.0.0.40' }), { dryRun: true }));
    assert.equal(requested.clusterIP, '10.0.0.40');
    assert.equal(await allocations.hasIP('10.0.0.40'), false);
  });
});

test('two API servers on one store never hand out the same address or port', async () => {
  const storage = new MemoryStorage();
  const a = server(storage, network('10.0.0.0/26', '30000-30019'));
  const b = server(storage, network('10.0.0.0/26', '30000-30019'));
  try {
    const creates = Array.from({ length: 20 }, (_, i) =>
      (i % 2 === 0 ? a : b).services.create!(ctx, 'n', svc(`s${i}`, { type: 'NodePort' }), noDry),
    );
    const out = (await Promise.all(creates)).map(specOf);
    // Twenty addresses fit above the static sub-range of a /26, so 10.0.0.3 stays free.
    const ips = out.map((s) => s.clusterIP);
    const ports = out.map((s) => s.ports?.[0]?.nodePort);
    assert.equal(new Set(ips).size, 20);
    assert.equal(new Set(ports).size, 20);
    // The node port range is now full.
    await rejects(a.services.create!(ctx, 'n', svc('more', { type: 'NodePort' }), noDry), 500, 'Internal error occurred: failed to allocate a nodePort: range is full');

    const same = await Promise.allSettled([
      a.services.create!(ctx, 'n', svc('x1', { clusterIP: '10.0.0.3' }), noDry),
      b.services.create!(ctx, 'n', svc('x2', { clusterIP: '10.0.0.3' }), noDry),
    ]);
    assert.deepEqual(same.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  } finally {
    await a.table.stop();
    await b.table.stop();
    await storage.close();
  }
});

test("the server's own Service takes the first address and points at the secure port", async () => {
  const storage = new MemoryStorage();
  const { table, services } = server(storage);
  try {
    await ensureMasterService(table, { network: network(), address: '127.0.0.1', securePort: 6443 });
    await ensureMasterService(table, { network: network(), address: '127.0.0.1', securePort: 7443 });
    const own = await services.get!(ctx, 'default', productName(), {});
    assert.deepEqual(specOf(own).clusterIPs, ['10.0.0.1']);
    assert.deepEqual(specOf(own).ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 6443 }]);
    assert.deepEqual(own.metadata?.labels, { component: 'apiserver', provider: productName() });
    const endpoints = await table.lookup(core, 'endpoints')!.get!(ctx, 'default', productName(), {});
    assert.deepEqual(endpoints.subsets, [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: 7443, protocol: 'TCP' }] }]);
  } finally {
    await table.stop();
    await storage.close();
  }
});

test('a record left by a write that never happened is taken over once old enough', async () => {
  const storage = new MemoryStorage();
  let now = new Date('2026-01-01T00:00:00Z');
  const held = new Set<string>();
  const allocations = new ServiceAllocations(storage, {
    now: () => now,
    isHeld: async (owner) => held.has(`${owner.namespace}/${owner.name}`),
  });
  const range = parseServiceClusterIPRanges('10.0.0.0/24')[0]!;
  try {
    await allocations.allocateIP(range, '10.0.0.7', { namespace: 'n', name: 'crashed' }, false);
    await allocations.allocateIP(range, '10.0.0.8', { namespace: 'n', name: 'alive' }, false);
    held.add('n/alive');
    // Too young: a create may still be on its way.
    await assert.rejects(allocations.allocateIP(range, '10.0.0.7', { namespace: 'n', name: 'new' }, false), { failure: 'allocated' });
    now = new Date('2026-01-01T00:05:00Z');
    assert.equal(await allocations.allocateIP(range, '10.0.0.7', { namespace: 'n', name: 'new' }, false), '10.0.0.7');
    await assert.rejects(allocations.allocateIP(range, '10.0.0.8', { namespace: 'n', name: 'new2' }, false), { failure: 'allocated' });
  } finally {
    await storage.close();
  }
});

test('a generated name is fixed before allocation, so records name the service', async () => {
  const storage = new MemoryStorage();
  const { table, services } = server(storage);
  try {
    const out = await services.create!(ctx, 'n', { metadata: { generateName: 'gen-' }, spec: { ports: [{ port: 80 }] } }, noDry);
    const ip = specOf(out).clusterIP as string;
    const item = (await storage.get(`/registry/ranges/serviceips/${ip}`)).item!;
    const rec = JSON.parse(new TextDecoder().decode(item.value)) as { namespace: string; name: string };
    assert.deepEqual([rec.namespace, rec.name], ['n', out.metadata?.name]);
    assert.match(rec.name, /^gen-[a-z0-9]{5}$/);
  } finally {
    await table.stop();
    await storage.close();
  }
});

test('the addresses and ports the server fills in belong to no field manager', async () => {
  const storage = new MemoryStorage();
  const { table, services } = server(storage);
  try {
    const out = await services.create!(ctx, 'n', svc('owned', { type: 'NodePort' }), { dryRun: false, fieldManager: 'maker' });
    const entries = out.metadata?.managedFields ?? [];
    assert.equal(entries.length, 1);
    assert.equal(entries[0]?.manager, 'maker');
    const fields = JSON.stringify(entries[0]?.fieldsV1);
    assert.match(fields, /"f:type"/);
    assert.match(fields, /"f:selector"/);
    for (const f of ['f:clusterIP', 'f:clusterIPs', 'f:ipFamilies', 'f:ipFamilyPolicy', 'f:nodePort']) assert.ok(!fields.includes(`"${f}"`), `${f} is not owned: ${fields}`);
    const updated = await services.update!(ctx, 'n', 'owned', (cur) => ({ ...cur!, spec: { ...specOf(cur!), sessionAffinity: 'ClientIP' } }), { dryRun: false, fieldManager: 'editor' });
    const editor = (updated.object.metadata?.managedFields ?? []).find((e) => e.manager === 'editor');
    assert.match(JSON.stringify(editor?.fieldsV1), /"f:sessionAffinity"/);
    assert.ok(!JSON.stringify(updated.object.metadata?.managedFields).includes('"f:clusterIP"'));
  } finally {
    await table.stop();
    await storage.close();
  }
});

test("the server's own Endpoints and EndpointSlice are written together, after its Service", async () => {
  // Creates held for a turn of the event loop, counting those in flight at once.
  let inFlight = 0;
  const together: string[][] = [];
  const current: string[] = [];
  class CountingStorage extends MemoryStorage {
    override async create(key: string, value: Uint8Array) {
      inFlight++;
      current.push(key.split('/').slice(-3, -2)[0]!);
      if (inFlight > 1) together.push([...current]);
      try {
        await new Promise((r) => setImmediate(r));
        return await super.create(key, value);
      } finally {
        inFlight--;
        current.splice(current.indexOf(key.split('/').slice(-3, -2)[0]!), 1);
      }
    }
  }
  const storage = new CountingStorage();
  const { table } = server(storage);
  try {
    await ensureMasterService(table, { network: network(), address: '127.0.0.1', securePort: 6443 });
    assert.ok(
      together.some((keys) => keys.includes('endpoints') && keys.includes('endpointslices')),
      `writes in flight together: ${JSON.stringify(together)}`,
    );
  } finally {
    await table.stop();
    await storage.close();
  }
});
