import type { Config } from '../config.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import type { Boss } from '../queue/boss.ts';
import { enqueue } from '../queue/enqueue.ts';
import { lockDueDigestAlerts, markDigested, type WaitingAlert } from './alertQueries.ts';
import { insertAlerts } from './queries.ts';

const TOP_ITEMS = 10;

export const DIGEST_CONSOLE_PATH = '/console/findings?status=open';

type Stake = { currency: string; cents: number };

// What an alert puts at stake: a finding's `at_stake` as its rule measured it (none when null), an
// authorization's or a dispute deadline's amount.
function stakeOf(alert: WaitingAlert): Stake | null {
  const cents = Object.hasOwn(alert.payload, 'at_stake') ? alert.payload.at_stake : alert.payload.amount;
  const currency = alert.payload.currency;
  return typeof cents === 'number' && typeof currency === 'string' ? { currency, cents } : null;
}

// Per currency, never added across currencies.
function sumStakes(stakes: (Stake | null)[]): Stake[] {
  const sums = new Map<string, number>();
  for (const stake of stakes)
    if (stake) sums.set(stake.currency, (sums.get(stake.currency) ?? 0) + stake.cents);
  return [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([currency, cents]) => ({ currency, cents }));
}

/** The digest of one window: counts by kind (the finding code), money at stake, the top items, a link. */
export function digestPayload(
  included: WaitingAlert[],
  dropped: number,
  windowEnd: Date,
  minutes: number | null,
) {
  const kinds = [...new Set(included.map((alert) => alert.kind))].sort();
  const top = included
    .map((alert) => ({ alert, stake: stakeOf(alert) }))
    .sort((a, b) => (b.stake?.cents ?? 0) - (a.stake?.cents ?? 0) || a.alert.id - b.alert.id)
    .slice(0, TOP_ITEMS);
  return {
    window_end: windowEnd.toISOString(),
    window_minutes: minutes,
    alerts: included.length,
    dropped_resolved: dropped,
    by_code: kinds.map((kind) => {
      const ofKind = included.filter((alert) => alert.kind === kind);
      return { code: kind, alerts: ofKind.length, at_stake: sumStakes(ofKind.map(stakeOf)) };
    }),
    at_stake: sumStakes(included.map(stakeOf)),
    top: top.map(({ alert, stake }) => ({
      alert_id: alert.id,
      code: alert.kind,
      subject_id: alert.subject_id,
      account_id: alert.account_id,
      at_stake: stake?.cents ?? null,
      currency: stake?.currency ?? null,
      console_path: typeof alert.payload.console_path === 'string' ? alert.payload.console_path : null,
    })),
    console_path: DIGEST_CONSOLE_PATH,
  };
}

/**
 * Sends the digests that are due: each waiting alert is locked by one scan only (`skip locked`), so
 * several workers send each window once. An alert whose finding resolved while it waited is dropped; a
 * window left with nothing sends nothing. Returns how many digests were queued.
 */
export async function sendDueDigests(
  context: { pool: Pool; boss: Boss; config: Pick<Config, 'ALERT_DIGEST_MINUTES'> },
  now: Date,
): Promise<number> {
  return withTransaction(context.pool, async (client) => {
    const waiting = await lockDueDigestAlerts(client, now);
    const windows = new Map<string, WaitingAlert[]>();
    for (const alert of waiting) {
      const key = alert.digest_due_at.toISOString();
      windows.set(key, [...(windows.get(key) ?? []), alert]);
    }
    let queued = 0;
    for (const [windowEnd, alerts] of windows) {
      const included = alerts.filter((alert) => !alert.resolved);
      const dropped = alerts.filter((alert) => alert.resolved).map((alert) => alert.id);
      const [digestId = null] = included.length
        ? await insertAlerts(
            client,
            [
              {
                // The first alert it holds names the digest: stragglers of a window sent go in one of their own.
                dedupeKey: `digest:${windowEnd}:${included[0]?.id}`,
                kind: 'digest',
                subjectId: `digest:${windowEnd}`,
                accountId: null,
                findingId: null,
                payload: digestPayload(
                  included,
                  dropped.length,
                  new Date(windowEnd),
                  context.config.ALERT_DIGEST_MINUTES ?? null,
                ),
              },
            ],
            now,
          )
        : [];
      await markDigested(client, { id: digestId, included: included.map((alert) => alert.id), dropped });
      if (digestId !== null) {
        await enqueue({ boss: context.boss, client }, 'send-alert', [{ alert_id: digestId }]);
        queued += 1;
      }
    }
    return queued;
  });
}
