// The default RBAC policy the server creates and reconciles at every start: the user-facing
// roles (cluster-admin, admin, edit, view and their aggregation parts), discovery and
// public-info roles, the node and node-bootstrap roles, and the roles of the server's own
// controllers, with their bindings. Built per call: group names depend on the flavor.
import type { KubeObject } from '../../apimachinery/types.js';
import { domainKey, flavor, group, longDomain, longDomainKey, productGroup, systemNamespace } from '../../naming/index.js';
import type { PolicyRule, Subject } from './rules.js';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const EVENTS_WRITE = ['create', 'patch', 'update'];

function r(verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule {
  const rule: PolicyRule = { verbs, apiGroups, resources };
  if (resourceNames) rule.resourceNames = resourceNames;
  return rule;
}

function urls(verbs: string[], nonResourceURLs: string[]): PolicyRule {
  return { verbs, nonResourceURLs };
}

type SignerName = 'apiserver-client' | 'apiserver-client-agent' | 'agent-serving' | 'legacy-unknown';

/** The path part of the built-in signer names, which differ between the flavors. */
function signerPath(s: SignerName): string {
  if (flavor() === 'orch') return s;
  const kube: Record<SignerName, string> = {
    'apiserver-client': 'kube-apiserver-client',
    'apiserver-client-agent': 'kube-apiserver-client-kubelet',
    'agent-serving': 'kubelet-serving',
    'legacy-unknown': 'legacy-unknown',
  };
  return kube[s];
}

export function autoupdateAnnotation(): string {
  return longDomainKey('autoupdate', 'rbac.authorization');
}

function aggregateLabel(to: 'admin' | 'edit' | 'view'): string {
  return domainKey(`aggregate-to-${to}`, 'rbac.authorization');
}

function meta(name: string, namespace?: string, labels: Record<string, string> = {}): KubeObject['metadata'] {
  const m: NonNullable<KubeObject['metadata']> = {
    name,
    labels: { [longDomainKey('bootstrapping')]: 'rbac-defaults', ...labels },
    annotations: { [autoupdateAnnotation()]: 'true' },
  };
  if (namespace) m.namespace = namespace;
  return m;
}

function clusterRole(name: string, rules: PolicyRule[], labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: `${group('rbac.authorization')}/v1`, kind: 'ClusterRole', metadata: meta(name, undefined, labels), rules };
}

function aggregated(name: string, to: 'admin' | 'edit' | 'view', labels: Record<string, string> = {}): KubeObject {
  const role = clusterRole(name, [], labels);
  role['aggregationRule'] = { clusterRoleSelectors: [{ matchLabels: { [aggregateLabel(to)]: 'true' } }] };
  return role;
}

function subject(kind: 'User' | 'Group' | 'ServiceAccount', name: string, namespace?: string): Subject {
  if (kind === 'ServiceAccount') return { kind, name, namespace: namespace ?? '' };
  return { kind, apiGroup: group('rbac.authorization'), name };
}

function clusterRoleBinding(name: string, roleName: string, subjects: Subject[]): KubeObject {
  return {
    apiVersion: `${group('rbac.authorization')}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: meta(name),
    roleRef: { apiGroup: group('rbac.authorization'), kind: 'ClusterRole', name: roleName },
    subjects,
  };
}

/** The server's own controllers: the service accounts they would run as in a split deployment. */
function controllerRole(name: string, rules: PolicyRule[]): KubeObject {
  return clusterRole(`system:controller:${name}`, rules);
}

export function defaultClusterRoles(): KubeObject[] {
  const authn = group('authentication');
  const authz = group('authorization');
  const rbac = group('rbac.authorization');
  const certs = group('certificates');
  const coordination = group('coordination');
  const networking = group('networking');
  const discovery = group('discovery');
  const events = group('events');
  const storage = group('storage');
  const admissionreg = group('admissionregistration');
  const apiext = group('apiextensions');
  const signer = (s: SignerName) => `${longDomain()}/${signerPath(s)}`;
  const viewLabel = { [aggregateLabel('view')]: 'true' };
  const editLabel = { [aggregateLabel('edit')]: 'true' };
  const adminLabel = { [aggregateLabel('admin')]: 'true' };
  return [
    clusterRole('cluster-admin', [r(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
    aggregated('admin', 'admin'),
    aggregated('edit', 'edit', adminLabel),
    aggregated('view', 'view', editLabel),
    clusterRole('system:aggregate-to-admin', [r(['create'], [authz], ['localsubjectaccessreviews']), r(READ_WRITE, [rbac], ['rolebindings', 'roles'])], adminLabel),
    clusterRole(
      'system:aggregate-to-edit',
      [
        r(READ, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
        r(['impersonate'], [''], ['serviceaccounts']),
        r(WRITE, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
        r(['create'], [''], ['pods/eviction']),
        r(WRITE, [''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy']),
        r(['create'], [''], ['serviceaccounts/token']),
        r(WRITE, ['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']),
        r(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
        r(WRITE, ['batch'], ['cronjobs', 'jobs']),
        r(WRITE, ['extensions'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale']),
        r(WRITE, ['policy'], ['poddisruptionbudgets']),
        r(WRITE, [networking], ['ingresses', 'networkpolicies']),
        r(READ_WRITE, [coordination], ['leases']),
      ],
      editLabel,
    ),
    clusterRole(
      'system:aggregate-to-view',
      [
        r(READ, [''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status']),
        r(READ, [''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status']),
        r(READ, [''], ['namespaces']),
        r(READ, [discovery], ['endpointslices']),
        r(READ, ['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']),
        r(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
        r(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
        r(READ, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale']),
        r(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
        r(READ, [networking], ['ingresses', 'ingresses/status', 'networkpolicies']),
      ],
      viewLabel,
    ),
    clusterRole('system:auth-delegator', [r(['create'], [authn], ['tokenreviews']), r(['create'], [authz], ['subjectaccessreviews'])]),
    clusterRole('system:basic-user', [
      r(['create'], [authz], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      r(['create'], [authn], ['selfsubjectreviews']),
      // The object history: each revision is then shown only to who may get its object.
      r(['get', 'list', 'watch'], [productGroup('history')], ['revisions']),
    ]),
    clusterRole('system:discovery', [
      urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/']),
    ]),
    clusterRole('system:public-info-viewer', [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])]),
    clusterRole('system:monitoring', [
      urls(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*']),
    ]),
    clusterRole('system:service-account-issuer-discovery', [urls(['get'], ['/.well-known/openid-configuration', '/openid/v1/jwks'])]),
    clusterRole('system:node', [
      r(['create'], [authn], ['tokenreviews']),
      r(['create'], [authz], ['localsubjectaccessreviews', 'subjectaccessreviews']),
      r(READ, [''], ['services']),
      r(['create', 'get', 'list', 'watch'], [''], ['nodes']),
      r(['patch', 'update'], [''], ['nodes/status']),
      r(['patch', 'update'], [''], ['nodes']),
      r(EVENTS_WRITE, [''], ['events']),
      r(READ, [''], ['pods']),
      r(['create', 'delete'], [''], ['pods']),
      r(['patch', 'update'], [''], ['pods/status']),
      r(['create'], [''], ['pods/eviction']),
      r(READ, [''], ['configmaps', 'secrets']),
      r(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
      r(['get'], [''], ['endpoints']),
      r(['create', 'get', 'list', 'watch'], [certs], ['certificatesigningrequests']),
      r(['create', 'delete', 'get', 'patch', 'update'], [coordination], ['leases']),
      r(['get'], [storage], ['volumeattachments']),
      r(['create'], [''], ['serviceaccounts/token']),
      r(['get', 'patch', 'update'], [''], ['persistentvolumeclaims/status']),
      r(READ, [storage], ['csidrivers']),
      r(['create', 'delete', 'get', 'patch', 'update'], [storage], ['csinodes']),
      r(READ, [group('node')], ['runtimeclasses']),
    ]),
    clusterRole('system:node-bootstrapper', [r(['create', 'get', 'list', 'watch'], [certs], ['certificatesigningrequests'])]),
    clusterRole('system:node-proxier', [
      r(['list', 'watch'], [''], ['endpoints', 'services']),
      r(READ, [''], ['nodes']),
      r(EVENTS_WRITE, ['', events], ['events']),
      r(['list', 'watch'], [discovery], ['endpointslices']),
    ]),
    clusterRole(`system:${certs}:certificatesigningrequests:nodeclient`, [r(['create'], [certs], ['certificatesigningrequests/nodeclient'])]),
    clusterRole(`system:${certs}:certificatesigningrequests:selfnodeclient`, [r(['create'], [certs], ['certificatesigningrequests/selfnodeclient'])]),
    clusterRole(`system:${certs}:${signerPath('apiserver-client')}-approver`, [r(['approve'], [certs], ['signers'], [signer('apiserver-client')])]),
    clusterRole(`system:${certs}:${signerPath('apiserver-client-agent')}-approver`, [r(['approve'], [certs], ['signers'], [signer('apiserver-client-agent')])]),
    clusterRole(`system:${certs}:${signerPath('agent-serving')}-approver`, [r(['approve'], [certs], ['signers'], [signer('agent-serving')])]),
    clusterRole(`system:${certs}:legacy-unknown-approver`, [r(['approve'], [certs], ['signers'], [signer('legacy-unknown')])]),
    clusterRole('system:kube-controller-manager', [
      r(EVENTS_WRITE, ['', events], ['events']),
      r(['create'], [coordination], ['leases']),
      r(['get', 'update'], [coordination], ['leases'], ['kube-controller-manager']),
      r(['create'], [''], ['secrets', 'serviceaccounts']),
      r(['delete'], [''], ['secrets']),
      r(['get'], [''], ['configmaps', 'namespaces', 'secrets', 'serviceaccounts']),
      r(['update'], [''], ['secrets', 'serviceaccounts']),
      r(['create'], [authn], ['tokenreviews']),
      r(['create'], [authz], ['subjectaccessreviews']),
      r(['list', 'watch'], ['*'], ['*']),
      r(['create'], [''], ['serviceaccounts/token']),
    ]),
    controllerRole('namespace-controller', [
      r(['delete', 'get', 'list', 'watch'], [''], ['namespaces']),
      r(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
      r(['delete', 'deletecollection', 'get', 'list'], ['*'], ['*']),
    ]),
    controllerRole('serviceaccount-controller', [r(['create'], [''], ['serviceaccounts']), r(EVENTS_WRITE, ['', events], ['events'])]),
    controllerRole('tokens-controller', [
      r(['create', 'delete', 'get', 'list', 'update'], [''], ['secrets']),
      r(['get', 'list'], [''], ['serviceaccounts']),
      r(EVENTS_WRITE, ['', events], ['events']),
    ]),
    controllerRole('clusterrole-aggregation-controller', [r(['escalate', 'get', 'list', 'patch', 'update', 'watch'], [rbac], ['clusterroles'])]),
    controllerRole('certificate-controller', [
      r(['delete', 'get', 'list', 'watch'], [certs], ['certificatesigningrequests']),
      r(['update'], [certs], ['certificatesigningrequests/approval', 'certificatesigningrequests/status']),
      r(['approve'], [certs], ['signers'], [signer('apiserver-client-agent')]),
      r(['sign'], [certs], ['signers'], [signer('apiserver-client'), signer('apiserver-client-agent'), signer('agent-serving'), signer('legacy-unknown')]),
      r(['create'], [authz], ['subjectaccessreviews']),
      r(EVENTS_WRITE, ['', events], ['events']),
    ]),
    controllerRole('garbage-collector', [r(['delete', 'get', 'list', 'patch', 'update', 'watch'], ['*'], ['*']), r(EVENTS_WRITE, ['', events], ['events'])]),
    controllerRole('cronjob-controller', [
      r(['get', 'list', 'update', 'watch'], ['batch'], ['cronjobs']),
      r(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], ['batch'], ['jobs']),
      r(['update'], ['batch'], ['cronjobs/status']),
      r(['update'], ['batch'], ['cronjobs/finalizers']),
      r(['delete', 'list'], [''], ['pods']),
      r(EVENTS_WRITE, ['', events], ['events']),
    ]),
    controllerRole('webhook-configuration-reader', [r(READ, [admissionreg], ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'])]),
    controllerRole('crd-controller', [r(['get', 'list', 'update', 'watch'], [apiext], ['customresourcedefinitions', 'customresourcedefinitions/status'])]),
  ];
}

export function defaultClusterRoleBindings(): KubeObject[] {
  const sa = (name: string) => subject('ServiceAccount', name, systemNamespace('system'));
  return [
    clusterRoleBinding('cluster-admin', 'cluster-admin', [subject('Group', 'system:masters')]),
    clusterRoleBinding('system:basic-user', 'system:basic-user', [subject('Group', 'system:authenticated')]),
    clusterRoleBinding('system:discovery', 'system:discovery', [subject('Group', 'system:authenticated')]),
    clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', [subject('Group', 'system:authenticated'), subject('Group', 'system:unauthenticated')]),
    clusterRoleBinding('system:monitoring', 'system:monitoring', [subject('Group', 'system:monitoring')]),
    clusterRoleBinding('system:service-account-issuer-discovery', 'system:service-account-issuer-discovery', [subject('Group', 'system:serviceaccounts')]),
    clusterRoleBinding('system:node-proxier', 'system:node-proxier', [subject('User', 'system:kube-proxy')]),
    clusterRoleBinding('system:kube-controller-manager', 'system:kube-controller-manager', [subject('User', 'system:kube-controller-manager')]),
    ...['namespace-controller', 'serviceaccount-controller', 'tokens-controller', 'clusterrole-aggregation-controller', 'certificate-controller', 'garbage-collector', 'cronjob-controller'].map(
      (c) => clusterRoleBinding(`system:controller:${c}`, `system:controller:${c}`, [sa(c)]),
    ),
  ];
}

/** Namespaced roles and bindings: bootstrap-token cleaning and cluster-info signing. */
export function defaultRoles(): KubeObject[] {
  const apiVersion = `${group('rbac.authorization')}/v1`;
  const role = (ns: string, name: string, rules: PolicyRule[]): KubeObject => ({ apiVersion, kind: 'Role', metadata: meta(name, ns), rules });
  return [
    role(systemNamespace('system'), 'system:controller:bootstrap-signer', [r(READ, [''], ['secrets'])]),
    role(systemNamespace('system'), 'system:controller:token-cleaner', [r(['delete', 'get', 'list', 'watch'], [''], ['secrets']), r(EVENTS_WRITE, ['', group('events')], ['events'])]),
    role(systemNamespace('public'), 'system:controller:bootstrap-signer', [
      r(READ, [''], ['configmaps']),
      r(['update'], [''], ['configmaps'], ['cluster-info']),
      r(EVENTS_WRITE, ['', group('events')], ['events']),
    ]),
    role(systemNamespace('public'), 'system:public-info-reader', [r(['get'], [''], ['configmaps'], ['cluster-info'])]),
  ];
}

export function defaultRoleBindings(): KubeObject[] {
  const apiVersion = `${group('rbac.authorization')}/v1`;
  const binding = (ns: string, name: string, roleName: string, subjects: Subject[]): KubeObject => ({
    apiVersion,
    kind: 'RoleBinding',
    metadata: meta(name, ns),
    roleRef: { apiGroup: group('rbac.authorization'), kind: 'Role', name: roleName },
    subjects,
  });
  const sys = systemNamespace('system');
  const pub = systemNamespace('public');
  return [
    binding(sys, 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [subject('ServiceAccount', 'bootstrap-signer', sys)]),
    binding(sys, 'system:controller:token-cleaner', 'system:controller:token-cleaner', [subject('ServiceAccount', 'token-cleaner', sys)]),
    binding(pub, 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [subject('ServiceAccount', 'bootstrap-signer', sys)]),
    binding(pub, 'system:public-info-reader', 'system:public-info-reader', [subject('Group', 'system:authenticated'), subject('Group', 'system:unauthenticated')]),
  ];
}
