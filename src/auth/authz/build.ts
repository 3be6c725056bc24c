// Builds the --authorization-mode chain. The superuser group is allowed ahead of every mode
// so that it can never be locked out.
import type { ParsedFlags } from '../../apimachinery/flags.js';
import type { KubeObject, UserInfo } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import { group } from '../../naming/index.js';
import { Reflector } from '../reflector.js';
import type { Informer } from '../../client/informer.js';
import { NODE_NAME_INDEX, podsByNodeName } from '../../client/indexes.js';
import { RBACAuthorizer, SUPERUSER_GROUP, privilegedGroupAuthorizer, rulesFor } from '../rbac/authorizer.js';
import type { RBACCache } from '../rbac/cache.js';
import type { PolicyRule } from '../rbac/rules.js';
import type { RulesResult } from '../reviews/stores.js';
import type { Authorizer } from '../types.js';
import { WebhookClient } from '../webhook-client.js';
import { AbacAuthorizer } from './abac.js';
import { NodeAuthorizer, nodeNameOf } from './node.js';
import { UnionAuthorizer, alwaysAllow, alwaysDeny } from './union.js';
import { WebhookAuthorizer } from './webhook.js';

const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'];

export interface BuiltAuthorizers {
  authorizer: Authorizer;
  rulesFor(user: UserInfo, namespace: string): RulesResult;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const EVERYTHING: RulesResult = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
  errors: [],
};

export interface AuthorizerDeps {
  client: ApiClient;
  rbac: RBACCache;
  /** A pods informer shared with the process (started here, stopped by its owner); without it the Node authorizer keeps its own reflector. */
  pods?: Informer;
}

export async function buildAuthorizers(flags: ParsedFlags, deps: AuthorizerDeps): Promise<BuiltAuthorizers> {
  const modes = flags.list('authorization-mode');
  if (modes.length === 0) throw new Error('--authorization-mode: at least one authorization mode must be passed');
  const seen = new Set<string>();
  const chain: Authorizer[] = [privilegedGroupAuthorizer];
  let pods: Reflector | Informer | undefined;
  const resolvers: ((user: UserInfo, ns: string) => RulesResult | undefined)[] = [];
  for (const mode of modes) {
    if (!AUTHORIZATION_MODES.includes(mode)) throw new Error(`--authorization-mode: unknown authorization mode "${mode}" specified`);
    if (seen.has(mode)) throw new Error(`--authorization-mode: authorization mode "${mode}" specified more than once`);
    seen.add(mode);
    switch (mode) {
      case 'AlwaysAllow':
        chain.push(alwaysAllow);
        resolvers.push(() => EVERYTHING);
        break;
      case 'AlwaysDeny':
        chain.push(alwaysDeny);
        resolvers.push(() => ({ resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] }));
        break;
      case 'RBAC': {
        chain.push(new RBACAuthorizer(deps.rbac));
        resolvers.push((user, ns) => {
          const r = rulesFor(deps.rbac, user, ns);
          return split(r.rules, false, r.errors);
        });
        break;
      }
      case 'Node': {
        let podsOn: (node: string) => readonly KubeObject[];
        if (deps.pods) {
          const informer = deps.pods;
          informer.addIndexers({ [NODE_NAME_INDEX]: podsByNodeName });
          pods = informer;
          podsOn = (node) => informer.byIndex(NODE_NAME_INDEX, node);
        } else {
          const reflector = new Reflector(deps.client, { group: '', version: 'v1', resource: 'pods' });
          pods = reflector;
          podsOn = (node) => reflector.list().filter((p) => nodeOf(p) === node);
        }
        const claims = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
        const volumes = { group: '', version: 'v1', resource: 'persistentvolumes' };
        const attachments = { group: group('storage'), version: 'v1', resource: 'volumeattachments' };
        chain.push(
          new NodeAuthorizer((node) => [...podsOn(node)], {
            claim: (ns, name) => deps.client.get(claims, ns, name),
            volume: (name) => deps.client.get(volumes, '', name),
            attachment: (name) => deps.client.get(attachments, '', name),
          }),
        );
        resolvers.push((user) =>
          nodeNameOf(user.username, user.groups) !== undefined
            ? { resourceRules: [], nonResourceRules: [], incomplete: true, errors: ['node authorizer does not support user rule resolution'] }
            : undefined,
        );
        break;
      }
      case 'ABAC': {
        const file = flags.string('authorization-policy-file');
        if (!file) throw new Error('--authorization-policy-file: required when using ABAC authorization mode');
        chain.push(await AbacAuthorizer.fromFile(file));
        resolvers.push(() => ({ resourceRules: [], nonResourceRules: [], incomplete: true, errors: [] }));
        break;
      }
      case 'Webhook': {
        const file = flags.string('authorization-webhook-config-file');
        if (!file) throw new Error('--authorization-webhook-config-file: required when using Webhook authorization mode');
        const version = flags.string('authorization-webhook-version') ?? 'v1beta1';
        if (version !== 'v1' && version !== 'v1beta1') throw new Error(`--authorization-webhook-version: unsupported version "${version}"`);
        chain.push(
          new WebhookAuthorizer(new WebhookClient(file), {
            version,
            authorizedTtlMs: flags.number('authorization-webhook-cache-authorized-ttl') ?? 300_000,
            unauthorizedTtlMs: flags.number('authorization-webhook-cache-unauthorized-ttl') ?? 30_000,
          }),
        );
        resolvers.push(() => ({ resourceRules: [], nonResourceRules: [], incomplete: true, errors: [] }));
        break;
      }
    }
  }
  if (seen.has('ABAC') === false && flags.string('authorization-policy-file')) {
    throw new Error('--authorization-policy-file: cannot be used without ABAC authorization mode');
  }
  if (seen.has('Webhook') === false && flags.string('authorization-webhook-config-file')) {
    throw new Error('--authorization-webhook-config-file: cannot be used without Webhook authorization mode');
  }
  return {
    authorizer: new UnionAuthorizer(chain),
    rulesFor(user, namespace) {
      if (user.groups.includes(SUPERUSER_GROUP)) return EVERYTHING;
      const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] };
      for (const resolve of resolvers) {
        const r = resolve(user, namespace);
        if (!r) continue;
        out.resourceRules.push(...r.resourceRules);
        out.nonResourceRules.push(...r.nonResourceRules);
        out.incomplete ||= r.incomplete;
        out.errors.push(...r.errors);
      }
      return out;
    },
    async start() {
      if (pods) {
        pods.start();
        await pods.waitForSync();
      }
    },
    async stop() {
      // A shared informer is its owner's to stop.
      if (pods instanceof Reflector) pods.stop();
    },
  };
}

function nodeOf(pod: KubeObject): string | undefined {
  const spec = pod['spec'];
  return isPlainObject(spec) && typeof spec['nodeName'] === 'string' ? spec['nodeName'] : undefined;
}

function split(rules: PolicyRule[], incomplete: boolean, errors: string[]): RulesResult {
  const resourceRules = rules.filter((r) => (r.resources ?? []).length > 0);
  const nonResourceRules = rules.filter((r) => (r.nonResourceURLs ?? []).length > 0);
  return { resourceRules, nonResourceRules, incomplete, errors };
}
