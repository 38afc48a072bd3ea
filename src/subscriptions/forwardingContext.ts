import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import type { ProjectionBacklog } from '../projection/projectionBacklog.ts';
import type { Boss } from '../queue/boss.ts';
import type { GiveWayTimes } from './giveWay.ts';

/** What the forwarding loops (sending and recording results) run with. */
export type ForwardingContext = {
  pool: Pool;
  boss: Boss;
  log: Logger;
  config: Pick<Config, 'FORWARD_CONCURRENCY' | 'ALERT_DIGEST_MINUTES'>;
  /** The same process's projection backlog, which forwarding gives way to (src/subscriptions/giveWay.ts). */
  backlog?: ProjectionBacklog;
  /** GIVE_WAY_TIMES unless given (tests shorten them). */
  giveWayTimes?: GiveWayTimes;
};
