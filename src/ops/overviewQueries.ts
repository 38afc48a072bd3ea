import type { Queryable } from '../db/pool.ts';

export type Overview = {
  deliveries_last_hour: number;
  deliveries_last_5_minutes: number;
  last_delivery_at: Date | null;
  oldest_unprocessed_at: Date | null;
  failed_deliveries: number;
  quarantined_deliveries: number;
  captures_expiring: number;
  disputes_due_within_3_days: number;
  last_fee_sync_at: Date | null;
  last_sweep_at: Date | null;
  last_report_at: Date | null;
  last_report_id: number | null;
};

/**
 * What the console's first page shows about ingest, the worker and the scheduled jobs, in one read. Its
 * subject is the health of operations, which is what src/ops watches: it reads the tables of ingest, the
 * projection, findings, fee syncs, sweeps and reports in one statement so the page costs one round trip.
 */
export async function readOverview(db: Queryable, now: Date): Promise<Overview> {
  const { rows } = await db.query<Overview>(
    `select (select count(*) from events where received_at >= $1::timestamptz - interval '1 hour')::int as deliveries_last_hour,
            (select count(*) from events where received_at >= $1::timestamptz - interval '5 minutes')::int as deliveries_last_5_minutes,
            (select max(received_at) from events) as last_delivery_at,
            (select min(received_at) from events where status = 'received') as oldest_unprocessed_at,
            (select count(*) from events where status = 'failed')::int as failed_deliveries,
            (select count(*) from events where status = 'quarantined')::int as quarantined_deliveries,
            (select count(*) from findings where code = 'capture_expiring' and status in ('open', 'acknowledged'))::int
              as captures_expiring,
            (select count(*) from disputes where status in ('needs_response', 'under_review')
               and due_date < ($1::timestamptz + interval '3 days')::date)::int as disputes_due_within_3_days,
            (select max(synced_at) from fee_configuration_syncs) as last_fee_sync_at,
            (select max(finished_at) from sweep_runs where status = 'completed') as last_sweep_at,
            (select max(created_at) from reports) as last_report_at,
            (select max(id) from reports where kind = 'daily') as last_report_id`,
    [now],
  );
  return rows[0] as Overview;
}
