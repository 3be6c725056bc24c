// The hook the pod connect subresources ask before dialing a node agent: nodes simulated in
// this process have none to dial, so their pods' logs are answered here and exec, attach and
// port-forward are refused clearly.

/** A container log request, its options already validated (PodLogOptions). */
export interface SimulatedLogRequest {
  namespace: string;
  pod: string;
  container: string;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
}

export interface SimulatedNodes {
  /** True when `nodeName` is simulated here (its pods' connect requests are answered by `containerLog` or refused). */
  isSimulated(nodeName: string): boolean;
  /** The container's log as text chunks (empty when none is configured). */
  containerLog(req: SimulatedLogRequest, signal: AbortSignal): AsyncIterable<string>;
}
