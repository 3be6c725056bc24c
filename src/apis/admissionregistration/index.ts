// Webhook configurations: the v1 defaults of each webhook.
import type { KubeObject } from '../../apimachinery/types.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { at, meta, obj, objs, setDefault } from '../util.js';

function defaultWebhooks(o: KubeObject, mutating: boolean): void {
  for (const w of objs(o.webhooks)) {
    setDefault(w, 'failurePolicy', 'Fail');
    setDefault(w, 'matchPolicy', 'Equivalent');
    setDefault(w, 'namespaceSelector', {});
    setDefault(w, 'objectSelector', {});
    setDefault(w, 'timeoutSeconds', 10);
    if (mutating) setDefault(w, 'reinvocationPolicy', 'Never');
    for (const r of objs(w.rules)) setDefault(r, 'scope', '*');
    const service = obj(at(w, 'clientConfig.service'));
    if (service) setDefault(service, 'port', 443);
  }
}

const webhookTable = {
  columns: [nameColumn, column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks in this configuration'), ageColumn],
  cells: (o: KubeObject, now: Date) => [meta(o).name ?? '', objs(o.webhooks).length, since(meta(o).creationTimestamp, now)],
};

const mutatingWebhooks: KindSpec = { allowUnconditionalUpdate: false, defaults: (o) => defaultWebhooks(o, true), table: webhookTable };
const validatingWebhooks: KindSpec = { allowUnconditionalUpdate: false, defaults: (o) => defaultWebhooks(o, false), table: webhookTable };

export const admissionregistrationKinds: Record<string, KindSpec> = {
  MutatingWebhookConfiguration: mutatingWebhooks,
  ValidatingWebhookConfiguration: validatingWebhooks,
};
