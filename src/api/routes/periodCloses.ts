import express, { type Router } from 'express';
import { CloseRefusedError, closePeriod, reopenPeriod } from '../../close/closePeriod.ts';
import { findClosedVersion, listPeriodHistory } from '../../close/closeQueries.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { single } from './envelope.ts';
import { noteBody } from './findings.ts';
import { undecodablePathParam } from './params.ts';
import { checkedPeriod, closeStateOf } from './periods.ts';

/**
 * `POST /api/periods/:period/close` and `/reopen` (admin tokens only, as every change), answered with the
 * period's state and history after the change. A refusal by the rules is 409 naming every reason, a reopen
 * without a note 422; either changes nothing.
 */
export function periodCloseRoutes(deps: AppDeps): Router {
  const router = express.Router();
  for (const action of ['close', 'reopen'] as const) {
    router.post(`/periods/:period/${action}`, express.json({ limit: '16kb' }), async (req, res) => {
      const now = deps.now();
      const period = await checkedPeriod(deps, req.params.period, now);
      const body: unknown = req.body ?? {};
      const parsed = noteBody.safeParse(
        typeof body === 'object' && body !== null && !Array.isArray(body) ? body : null,
      );
      if (!parsed.success)
        throw new HttpError(422, 'invalid_parameter', 'note: must be text (body {"note": "…"})');
      const request = { period, actor: req.principal?.name as string, note: parsed.data.note || null, now };
      await changePeriodState(deps, action, request);
      res.json(
        single('period', period, {
          period,
          ...closeStateOf(await findClosedVersion(deps.pool, period)),
          history: await listPeriodHistory(deps.pool, period),
        }),
      );
    });
  }
  router.use(undecodablePathParam('period'));
  return router;
}

/** Closes or reopens a period, its refusals as HTTP answers: 409 by the rules, 422 a reopen without a note. */
export async function changePeriodState(
  deps: AppDeps,
  action: 'close' | 'reopen',
  request: { period: string; actor: string; note: string | null; now: Date },
): Promise<void> {
  try {
    if (action === 'close') await closePeriod(deps.pool, deps.config, request);
    else await reopenPeriod(deps.pool, request);
  } catch (err) {
    if (!(err instanceof CloseRefusedError)) throw err;
    if (err.reason === 'note_required') throw new HttpError(422, 'note_required', err.message);
    throw new HttpError(409, `${action}_refused`, err.message);
  }
  // Every change is attributed to the token that made it.
  deps.log.info({ period: request.period, action, actor: request.actor }, 'period state changed');
}
