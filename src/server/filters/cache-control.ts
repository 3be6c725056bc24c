// As kube-apiserver: API answers are per user and must not be cached on the way.
import type { Filter } from './chain.js';

export const withCacheControl: Filter = (next) => (scope) => {
  scope.res.setHeader('Cache-Control', 'no-cache, private');
  return next(scope);
};
