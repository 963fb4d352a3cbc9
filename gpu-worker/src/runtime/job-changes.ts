import type { NotificationListener } from "@caption/shared/db/notification-listener";
import { JOB_EVENTS_CHANNEL } from "@caption/shared/jobs/catalog";
import type { JobChanges } from "../pipeline/cancel-watch.ts";

/**
 * A job's changes as the jobs trigger announces them (NOTIFY on JOB_EVENTS_CHANNEL, the job id as
 * payload), heard on the process's LISTEN connection; a reconnection counts as a change, since
 * notifications sent while it was away are lost.
 */
export function jobChangesFrom(listener: NotificationListener): JobChanges {
  return {
    subscribe(jobId, onChange) {
      const unsubscribers = [listener.subscribe(JOB_EVENTS_CHANNEL, jobId, onChange), listener.onConnected(onChange)];
      return () => unsubscribers.forEach((unsubscribe) => unsubscribe());
    },
  };
}
