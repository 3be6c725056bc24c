// Request attributes for authorizer tests.
import type { UserInfo } from '../apimachinery/types.js';
import type { AuthorizationAttributes } from '../auth/types.js';

export function res(user: UserInfo, verb: string, apiGroup: string, resource: string, namespace = '', name = '', subresource = ''): AuthorizationAttributes {
  return { user, verb, isResourceRequest: true, path: '', apiGroup, apiVersion: 'v1', resource, subresource, namespace, name };
}

export function nonres(user: UserInfo, verb: string, path: string): AuthorizationAttributes {
  return { user, verb, isResourceRequest: false, path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
}

export function describe(a: AuthorizationAttributes): string {
  if (!a.isResourceRequest) return `${a.user.username} ${a.verb} ${a.path}`;
  const r = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return `${a.user.username} ${a.verb} ${a.apiGroup ? `${r}.${a.apiGroup}` : r} ns=${a.namespace || '-'} name=${a.name || '-'}`;
}
