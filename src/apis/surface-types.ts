// The shape of the generated surface data (src/apis/surface.ts): a served resource's fields
// as upstream names them (groups with their upstream domain, `` for core; storage in
// upstream terms), and what decides whether it is served.
import type { ResourceDefinition, SubresourceDefinition } from '../rest/index.js';

export interface SurfaceResource extends Omit<ResourceDefinition, 'strategy' | 'conversion' | 'subresources'> {
  /** The subresources listed, without who serves them (the kinds declare that). */
  subresources: Omit<SubresourceDefinition, 'serving' | 'connect'>[];
  /** How it is on by default: its whole group-version, itself alone (legacy betas), or not at all. */
  defaultEnabled: 'version' | 'resource' | 'off';
  /** Scheduled (not yet effective) deprecation and removal releases. */
  lifecycle?: { deprecatedIn?: string; removedIn?: string };
  introducedIn?: string;
  /** Upstream key prefix when it differs from the resource name (informational). */
  etcdPrefix?: string;
}
