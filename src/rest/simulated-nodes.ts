// The hook the pod connect subresources ask before dialing a node agent: nodes simulated in
// this process have none to dial, so their pods' logs are answered here and exec, attach and
// port-forward are refused clearly.
import type { ConnectRequest } from './store.js';

/** A container log request, its options already validated (PodLogOptions). */
export interface SimulatedLogRequest {
  namespace: string;
  pod: string;
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
}

export interface SimulatedNodes {
  /** True when `nodeName` is simulated here: its pods' connect requests are answered here or refused. */
  isSimulated(nodeName: string): boolean;
  /** Answers the log request: 200 and the container's log (empty when none is configured). */
  serveLog(req: SimulatedLogRequest, response: ConnectRequest['response'], signal: AbortSignal): Promise<void>;
}
