// csrcleaner: every hour, deletes signing requests nobody needs any more: pending ones a
// day after creation; approved-and-issued, denied and failed ones an hour after the
// decision; issued ones whose certificate has expired.
import { X509Certificate } from 'node:crypto';
import type { KubeObject } from '../../apimachinery/types.js';
import { isApiError } from '../../apimachinery/errors.js';
import { pemBlocks } from '../../apis/certificates/signers.js';
import type { ControllerDescriptor } from '../types.js';
import { csrParts, csrResource } from './common.js';
import { group } from '../../naming/index.js';

const HOUR = 3600_000;
export const POLLING_INTERVAL_MS = HOUR;
const PENDING_MS = 24 * HOUR;
const DECIDED_MS = HOUR;

function olderThan(time: string | null | undefined, ms: number, now: Date): boolean {
  if (!time) return false;
  const t = Date.parse(time);
  return Number.isFinite(t) && now.getTime() - t > ms;
}

/** When the first certificate of `certificate` (base64 of PEM) expires; undefined when unreadable. */
function certificateNotAfter(certificate: string): Date | undefined {
  const block = pemBlocks(Buffer.from(certificate, 'base64').toString('latin1')).find((b) => b.type === 'CERTIFICATE');
  if (!block) return undefined;
  try {
    // Node's own parser: reading one date does not justify loading the X.509 library at start.
    const notAfter = new Date(new X509Certificate(block.der).validTo);
    return Number.isNaN(notAfter.getTime()) ? undefined : notAfter;
  } catch {
    return undefined;
  }
}

/** Why `csr` goes now, or undefined while it stays. */
export function cleanupReason(csr: KubeObject, now: Date): string | undefined {
  const { status } = csrParts(csr);
  const conditions = status.conditions ?? [];
  const issued = !!status.certificate;
  const approved = conditions.find((c) => c.type === 'Approved');
  if (approved && issued && olderThan(approved.lastUpdateTime, DECIDED_MS, now)) return 'it is more than 1h0m0s old and approved';
  if (conditions.some((c) => c.type === 'Denied' && olderThan(c.lastUpdateTime, DECIDED_MS, now))) return 'it is more than 1h0m0s old and denied';
  if (conditions.some((c) => c.type === 'Failed' && olderThan(c.lastUpdateTime, DECIDED_MS, now))) return 'it is more than 1h0m0s old and failed';
  if (conditions.length === 0 && olderThan(csr.metadata?.creationTimestamp, PENDING_MS, now)) return 'it is more than 24h0m0s old and unhandled';
  if (approved && issued) {
    const notAfter = certificateNotAfter(status.certificate ?? '');
    if (notAfter && now.getTime() > notAfter.getTime()) return 'the associated certificate is expired';
  }
  return undefined;
}

/** The descriptor, built when the manager is: the resource it requires is named in the flavor chosen by then. */
export function csrCleanerController(): ControllerDescriptor {
  return {
    name: 'csrcleaner',
    requires: [{ group: group('certificates'), resource: 'certificatesigningrequests' }],
    start(ctx) {
      const informer = ctx.informers.informerFor(csrResource());
      informer.start();
      let busy = false;
      let stopped = false;
      let cancel: () => void = () => {};
      const pass = async (): Promise<void> => {
        busy = true;
        try {
          await informer.waitForSync();
          for (const csr of informer.list()) {
            if (stopped) return;
            if (!cleanupReason(csr, ctx.clock.now())) continue;
            try {
              await ctx.client.delete(csrResource(), '', csr.metadata?.name ?? '', { preconditions: { uid: csr.metadata?.uid } });
            } catch (err) {
              if (!(isApiError(err) && (err.code === 404 || err.code === 409))) ctx.onError(err);
            }
          }
        } finally {
          busy = false;
        }
      };
      let running: Promise<void> = Promise.resolve();
      const tick = (): void => {
        if (stopped) return;
        running = pass().catch((err: unknown) => ctx.onError(err));
        cancel = ctx.clock.schedule(POLLING_INTERVAL_MS, tick);
      };
      tick();
      return {
        async stop() {
          stopped = true;
          cancel();
          await running;
        },
        idle: () => !busy,
      };
    },
  };
}
