// How many deliveries wait and fail, and since when. The raw log's row is written once: a delivery this release
// stored (`stored`) waits in `event_queue`, fails into `event_failures`, and is timed in `processed_events`;
// rows stored before it keep the status, error and time on the row. The `deliveries` view (migration 0028)
// shows each delivery's state from either place.

/** Deliveries waiting to be projected: queued, or stored `received` by the previous release. */
export const WAITING_COUNT = `(select count(*) from event_queue) + (select count(*) from events where status = 'received')`;

/** Deliveries whose projection failed (retried later or not). */
export const FAILED_COUNT = `(select count(*) from event_failures) + (select count(*) from events where status = 'failed')`;

/** When the oldest delivery waiting to be projected was received (null: none waits). */
export const OLDEST_WAITING_RECEIVED_AT = `least(
  (select min(e.received_at) from event_queue q join events e on e.id = q.id),
  (select min(received_at) from events where status = 'received'))`;
