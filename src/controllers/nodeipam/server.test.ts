// Black-box, through the whole server: the flags reach the in-process controller, bad ones
// refuse the start, and simulated nodes get pod CIDRs (and their pods addresses in them) by default.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startApiServer, type ApiServerHandle } from '../../lib/index.js';
import { OptionError } from '../../lib/options.js';
import { eventually } from '../../testing/wait.js';
import { HttpClient } from '../../client/http.js';
import { readKubeconfig } from '../../client/kubeconfig.js';
import { NODES } from './controller.js';

const PODS = { group: '', version: 'v1', resource: 'pods' };

const clients = new WeakMap<ApiServerHandle, HttpClient>();
function clientOf(server: ApiServerHandle): HttpClient {
  let c = clients.get(server);
  if (!c) clients.set(server, (c = new HttpClient(readKubeconfig(server.kubeconfigPath))));
  return c;
}

async function podCIDRs(server: ApiServerHandle, node: string): Promise<string[] | undefined> {
  return ((await clientOf(server).get(NODES, '', node)).spec as { podCIDRs?: string[] } | undefined)?.podCIDRs;
}

async function stop(server: ApiServerHandle): Promise<void> {
  clients.get(server)?.close();
  await server.stop();
}

describe('nodeipam in the server', () => {
  it('refuses bad flags at start, naming them', async () => {
    const cases: [string[], RegExp][] = [
      [['--allocate-node-cidrs'], /--cluster-cidr must be specified if --allocate-node-cidrs is set/],
      [['--allocate-node-cidrs', '--cluster-cidr=10.244.0.0/16', '--node-cidr-mask-size=8'], /mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size/],
      [['--allocate-node-cidrs', '--cluster-cidr=fd00::/40'], /node CIDR size is too big/],
      [['--cluster-cidr=10.244.0.0/16/1'], /invalid CIDR address/],
      [['--cidr-allocator-type=CloudAllocator'], /only RangeAllocator/],
    ];
    for (const [flags, message] of cases) await assert.rejects(startApiServer({ flags }), message, flags.join(' '));
    await assert.rejects(startApiServer({ nodeCIDRs: { clusterCIDR: '10.0.0.0/8', maskSize: 0 } }), (err: unknown) => err instanceof OptionError && /nodeCIDRs\.maskSize/.test(err.message));
    await assert.rejects(startApiServer({ nodeCIDRs: JSON.parse('{"__proto__": {"clusterCIDR": "10.0.0.0/8"}}') as never }), /nodeCIDRs/);
  });

  it('allocates nothing by default without simulated nodes, as kube-controller-manager', async () => {
    const server = await startApiServer();
    try {
      await clientOf(server).create(NODES, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } });
      await server.settled();
      assert.equal(await podCIDRs(server, 'n'), undefined);
    } finally {
      await stop(server);
    }
  });

  it('gives simulated nodes pod CIDRs of 10.128.0.0/9 and their pods addresses in them', async () => {
    const server = await startApiServer({ simulatedNodes: 2 });
    try {
      await server.settled();
      const cidrs = [await podCIDRs(server, 'node-000000'), await podCIDRs(server, 'node-000001')].map((c) => c?.join());
      assert.deepEqual([...cidrs].sort(), ['10.128.0.0/24', '10.128.1.0/24']);
      await clientOf(server).create(PODS, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
      const pod = await eventually(async () => {
        const p = (await clientOf(server).get(PODS, 'default', 'p')) as { spec?: { nodeName?: string }; status?: { phase?: string; podIP?: string } };
        return p.status?.phase === 'Running' ? p : undefined;
      }, 'the pod Running');
      const cidr = (await podCIDRs(server, pod.spec?.nodeName ?? ''))?.[0] ?? '';
      assert.equal(pod.status?.podIP, cidr.replace(/0\/24$/, '1'));
    } finally {
      await stop(server);
    }
  });

  it('takes the ranges of the nodeCIDRs option, dual stack too; false turns allocation off', async () => {
    const server = await startApiServer({ nodeCIDRs: { clusterCIDR: '10.244.0.0/16,fd00:10:244::/56', maskSizeIPv4: 25 } });
    try {
      await clientOf(server).create(NODES, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } });
      await eventually(async () => (await podCIDRs(server, 'n')) !== undefined, 'the node CIDRs');
      assert.deepEqual(await podCIDRs(server, 'n'), ['10.244.0.0/25', 'fd00:10:244::/64']);
    } finally {
      await stop(server);
    }
    const off = await startApiServer({ simulatedNodes: 1, nodeCIDRs: false });
    try {
      await off.settled();
      assert.equal(await podCIDRs(off, 'node-000000'), undefined);
    } finally {
      await stop(off);
    }
  });
});
