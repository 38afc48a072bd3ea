import { Counter, Gauge, type Registry } from 'prom-client';
import { FALLBACK_REASONS, type Reads } from '../db/readPool.ts';

/**
 * The read replica's gauges, registered only with DATABASE_READ_URL set: without a replica they would say
 * "lag 0" of one that does not exist. Each reads the last lag check, which runs on its own timer (readPool.ts).
 */
export function registerReplicaMetrics(registry: Registry, reads: Reads): void {
  if (reads.replica === null) return;
  // prom-client always shows an unlabelled gauge (0 after a reset, `Nan` for NaN): an unknown lag leaves it out.
  class LagGauge extends Gauge {
    override async get() {
      const metric = await super.get();
      return reads.replica?.lagSeconds == null ? { ...metric, values: [] } : metric;
    }
  }
  new LagGauge({
    name: 'tally_read_replica_lag_seconds',
    help: 'How far the read replica (DATABASE_READ_URL) was behind the primary at the last check (absent: unknown, as when it is unreachable)',
    registers: [registry],
    collect() {
      this.set(reads.replica?.lagSeconds ?? 0);
    },
  });
  new Gauge({
    name: 'tally_read_replica_fallback',
    help: 'Whether lag-tolerant reads go to the primary (1) because the read replica is behind or unreachable, or to the replica (0)',
    registers: [registry],
    collect() {
      this.set(reads.replica?.readsFrom === 'primary' ? 1 : 0);
    },
  });
  new Counter({
    name: 'tally_read_replica_fallbacks_total',
    help: 'Times lag-tolerant reads moved to the primary, by reason (lag, unreachable, not_a_standby)',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      const fallbacks = reads.replica?.fallbacks;
      if (!fallbacks) return;
      this.reset();
      for (const reason of FALLBACK_REASONS) this.inc({ reason }, fallbacks[reason]);
    },
  });
}
