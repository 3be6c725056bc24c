// What the certificate controllers share: the CSR resource, kube-controller-manager's
// certificate controller loop (every add and update of a request queued, handled once per
// key at a time, failures retried with back-off) and reading the PKCS#10 request.
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { keyOf } from '../../client/informer.js';
import type { x509 } from '../../auth/x509-lib.js';
import { group } from '../../naming/index.js';
import { KeyedLoop } from '../keyed-loop.js';
import type { ControllerContext, RunningController } from '../types.js';

export function csrResource(): GroupVersionResource {
  return { group: group('certificates'), version: 'v1', resource: 'certificatesigningrequests' };
}

export interface CSRCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface CSRShape {
  spec: {
    request?: string;
    signerName?: string;
    usages?: string[];
    expirationSeconds?: number;
    username?: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
  };
  status: { conditions?: CSRCondition[]; certificate?: string };
}

/** The spec and status of a request, typed (absent parts empty). */
export function csrParts(o: KubeObject): CSRShape {
  const spec = (o.spec ?? {}) as CSRShape['spec'];
  const status = (o.status ?? {}) as CSRShape['status'];
  return { spec, status };
}

export function hasCondition(o: KubeObject, type: string): boolean {
  return (csrParts(o).status.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/** What the signers and the approver read of a PKCS#10 request. */
export interface ParsedRequest {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  request: InstanceType<typeof x509.Pkcs10CertificateRequest>;
}

/** Parses `spec.request` (base64 of PEM); throws with Kubernetes' words when it is not a request. */
export async function parseRequest(requestBase64: string): Promise<ParsedRequest> {
  const pem = Buffer.from(requestBase64, 'base64').toString('latin1');
  const match = /-----BEGIN ([^\n-]*)-----[\s\S]*?-----END \1-----/.exec(pem);
  if (!match || match[1] !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  // The X.509 library is loaded with the first request, not with the server (~150 ms of start-up).
  const { x509 } = await import('../../auth/x509-lib.js');
  const request = new x509.Pkcs10CertificateRequest(match[0]);
  const san = request.getExtension('2.5.29.17');
  const names = san ? new x509.SubjectAlternativeNameExtension(san.rawData).names.items : [];
  const of = (type: string): string[] => names.filter((n) => n.type === type).map((n) => n.value);
  return {
    commonName: request.subjectName.getField('CN')[0] ?? '',
    organizations: request.subjectName.getField('O'),
    dnsNames: of('dns'),
    ipAddresses: of('ip'),
    emailAddresses: of('email'),
    uris: of('url'),
    request,
  };
}

/**
 * The certificate controller loop over CSRs: `handle` sees a copy of each request that has
 * no certificate yet; a throw retries the key with back-off.
 */
export function startCSRController(ctx: ControllerContext, handle: (csr: KubeObject) => Promise<void>): RunningController {
  const informer = ctx.informers.informerFor(csrResource());
  // Every CSR controller's queue is named `certificate`, as Kubernetes' certificate controller names it.
  const loop = new KeyedLoop(ctx.clock, 'certificate', { baseRetryDelayMs: 200 });
  const enqueue = (o: KubeObject): void => loop.add(keyOf(o));
  loop.onStop(informer.addEventHandler({ onAdd: enqueue, onUpdate: (_old, o) => enqueue(o) }));
  informer.start();
  loop.run(
    async (key) => {
      const csr = informer.getByKey(key);
      if (!csr || csrParts(csr).status.certificate) return;
      await handle(structuredClone(csr));
    },
    1,
    ctx.onError,
  );
  return { stop: () => loop.stop(), idle: () => informer.hasSynced() && loop.idle() };
}
