// API priority and fairness: each request is classified by FlowSchema, then executes, waits
// in its priority level's queues, or is refused with 429 (kube-apiserver's message and
// `Retry-After: 1`). With it on, it takes the place of the max-in-flight filter. Long-running
// requests other than watches are not limited; a watch holds its seat only until its initial
// events are sent (the watch handler calls `scope.watchInitialized`).
import { tooManyRequests } from '../../apimachinery/errors.js';
import type { Decision, FlowController } from '../../flowcontrol/controller.js';
import type { ApiServerMetrics } from '../metrics.js';
import { isLongRunning, type RequestInfo } from '../request-info.js';
import { andFinally, isPromise, required, type Filter, type Handler, type Outcome, type RequestScope } from './chain.js';

export const FLOW_SCHEMA_UID_HEADER = 'X-Kubernetes-PF-FlowSchema-UID';
export const PRIORITY_LEVEL_UID_HEADER = 'X-Kubernetes-PF-PriorityLevel-UID';

/** kube-apiserver's BasicLongRunningRequestCheck: these verbs and subresources are not limited. */
const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

export function withPriorityAndFairness(flowControl: FlowController, metrics: ApiServerMetrics): Filter {
  const executing = { readOnly: 0, mutating: 0 };

  const run = (next: Handler, scope: RequestScope, info: RequestInfo, isWatch: boolean, decision: Decision): Outcome => {
    const { flowSchema, priorityLevel } = decision.classification;
    if (!scope.res.headersSent) {
      scope.res.setHeader(PRIORITY_LEVEL_UID_HEADER, priorityLevel.uid);
      scope.res.setHeader(FLOW_SCHEMA_UID_HEADER, flowSchema.uid);
    }
    if ('reject' in decision) throw tooManyRequests('Too many requests, please try again later.', 1);

    const kind = READ_ONLY_VERBS.has(info.verb) || (!info.isResourceRequest && (scope.method === 'GET' || scope.method === 'HEAD')) ? 'readOnly' : 'mutating';
    metrics.setInflight(kind, ++executing[kind]);
    const started = process.hrtime.bigint();
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      metrics.setInflight(kind, --executing[kind]);
      flowControl.observeExecution(priorityLevel.name, flowSchema.name, Number(process.hrtime.bigint() - started) / 1e9);
      decision.execute();
    };
    if (isWatch) scope.watchInitialized = release;
    return andFinally(() => next(scope), release);
  };

  return (next) => (scope) => {
    const info = required(scope.info, 'RequestInfo');
    const user = required(scope.user, 'the user');
    const isWatch = info.isResourceRequest && info.verb === 'watch';
    if (isLongRunning(info) && !isWatch) return next(scope);

    // A request that queues asks for its signal (a client that goes away leaves the queue).
    const decision = flowControl.admit({ info, user }, () => scope.abort.signal);
    return isPromise(decision) ? decision.then((d) => run(next, scope, info, isWatch, d)) : run(next, scope, info, isWatch, decision);
  };
}
