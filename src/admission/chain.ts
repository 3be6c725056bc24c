// The chain the handlers call: every enabled plugin in run order, the mutating phase
// first (each plugin's `admit`), the validating phase inside the store (`validate`). The
// first rejection ends the request.
import { forbidden } from '../apimachinery/errors.js';
import type { AdmissionAttributes, AdmissionChain, AdmissionOperation, AdmissionPlugin } from './types.js';

export class PluginChain implements AdmissionChain {
  constructor(readonly plugins: readonly AdmissionPlugin[]) {}

  async admit(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.admit && p.handles(attrs.operation)) await p.admit(attrs);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.validate && p.handles(attrs.operation)) await p.validate(attrs);
  }
}

const ALL_OPERATIONS = (_op: AdmissionOperation): boolean => true;

/** AlwaysAdmit (deprecated upstream): lets everything through. */
export const alwaysAdmit: AdmissionPlugin = {
  name: 'AlwaysAdmit',
  handles: ALL_OPERATIONS,
  async admit() {},
};

/** AlwaysDeny (deprecated upstream): refuses every write; for tests. */
export const alwaysDeny: AdmissionPlugin = {
  name: 'AlwaysDeny',
  handles: ALL_OPERATIONS,
  async admit(attrs) {
    const name = attrs.name || attrs.object?.metadata?.name || attrs.object?.metadata?.generateName || 'Unknown';
    throw forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, name, 'admission control is denying all modifications');
  },
};
