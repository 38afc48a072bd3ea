import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import type { Boss } from '../queue/boss.ts';

/** What the forwarding loops (sending and recording results) run with. */
export type ForwardingContext = {
  pool: Pool;
  boss: Boss;
  log: Logger;
  config: Pick<Config, 'FORWARD_CONCURRENCY' | 'ALERT_DIGEST_MINUTES'>;
};
