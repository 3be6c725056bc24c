// The connect subresources of pods, services and nodes as the kinds declare them: the methods
// each answers (kube-apiserver's connecters') and the options object CONNECT admission sees,
// read from the query and subpath as the connecter's options kind. Served by the handlers
// the server provides (`PodConnect`, `ServiceProxy`, `NodeProxy`).
import type { KubeObject } from '../../apimachinery/types.js';
import type { ConnectServing, SubresourceHandler } from '../../rest/index.js';
import type { SubresourceDeclaration } from '../strategy.js';

const PROXY_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const STREAM_METHODS = ['GET', 'POST'];

function queryBool(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v !== null && v !== '0' && v.toLowerCase() !== 'false';
}

function proxyOptions(kind: string): ConnectServing {
  return { methods: PROXY_METHODS, admissionOptions: (_query, path) => ({ apiVersion: 'v1', kind, ...(path ? { path } : {}) }) as KubeObject };
}

/** PodExecOptions and PodAttachOptions: any query parameter turns stdout and stderr on by default. */
function streamOptions(kind: 'PodExecOptions' | 'PodAttachOptions'): ConnectServing {
  return {
    methods: STREAM_METHODS,
    admissionOptions(query) {
      const defaults = [...query.keys()].length > 0;
      const opts: Record<string, unknown> = {
        apiVersion: 'v1',
        kind,
        ...(queryBool(query, 'stdin') ? { stdin: true } : {}),
        ...(defaults || queryBool(query, 'stdout') ? { stdout: true } : {}),
        ...(defaults || queryBool(query, 'stderr') ? { stderr: true } : {}),
        ...(queryBool(query, 'tty') ? { tty: true } : {}),
        ...(query.get('container') ? { container: query.get('container') } : {}),
      };
      if (kind === 'PodExecOptions') opts.command = query.getAll('command');
      return opts as KubeObject;
    },
  };
}

const portForward: ConnectServing = {
  methods: STREAM_METHODS,
  admissionOptions(query) {
    const ports = query.getAll('ports').flatMap((v) => v.split(',')).filter((v) => /^\d+$/.test(v)).map(Number);
    return { apiVersion: 'v1', kind: 'PodPortForwardOptions', ...(ports.length ? { ports } : {}) } as KubeObject;
  },
};

function served(handler: SubresourceHandler, connect: ConnectServing): SubresourceDeclaration {
  return { serving: { by: 'handler', handler }, connect };
}

/** Pods' proxy, log, exec, attach and port-forward. */
export const podConnectSubresources: Record<string, SubresourceDeclaration> = {
  proxy: served('PodConnect', proxyOptions('PodProxyOptions')),
  // The log is a read with options: no CONNECT admission.
  log: served('PodConnect', { methods: ['GET'], read: true }),
  exec: served('PodConnect', streamOptions('PodExecOptions')),
  attach: served('PodConnect', streamOptions('PodAttachOptions')),
  portforward: served('PodConnect', portForward),
};

export const serviceProxy: SubresourceDeclaration = served('ServiceProxy', proxyOptions('ServiceProxyOptions'));
export const nodeProxy: SubresourceDeclaration = served('NodeProxy', proxyOptions('NodeProxyOptions'));
