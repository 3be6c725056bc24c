// The batch controllers: CronJob, Job and TTL-after-finished, as kube-controller-manager names them.
export { cronJobControllerDescriptor, CronJobController, jobFromTemplate } from './cronjob.js';
export { jobControllerDescriptor, JobController, trackingFinalizer, completionIndexAnnotation } from './job.js';
export { ttlAfterFinishedControllerDescriptor, TTLAfterFinishedController } from './ttl-after-finished.js';

import { cronJobControllerDescriptor } from './cronjob.js';
import { jobControllerDescriptor } from './job.js';
import { ttlAfterFinishedControllerDescriptor } from './ttl-after-finished.js';
import type { ControllerDescriptor } from '../types.js';

export const batchControllers: ControllerDescriptor[] = [cronJobControllerDescriptor, jobControllerDescriptor, ttlAfterFinishedControllerDescriptor];
