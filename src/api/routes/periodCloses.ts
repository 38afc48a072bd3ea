import { CloseRefusedError, closePeriod, reopenPeriod } from '../../close/closePeriod.ts';
import { findClosedVersion, listPeriodHistory } from '../../close/closeQueries.ts';
import type { AppDeps } from '../deps.ts';
import { HttpError } from '../errors.ts';
import * as schemas from '../openapi/responses.ts';
import { single } from './envelope.ts';
import { noteBody, noteOf } from './findings.ts';
import { checkedPeriod, closeStateOf, periodParams } from './periods.ts';
import { json, ok, type Route, refused, route } from './route.ts';

/**
 * `POST /api/periods/:period/close` or `/reopen` (admin tokens only, as every change), answered with the
 * period's state and history after the change. A refusal by the rules is 409 naming every reason, a reopen
 * without a note 422; either changes nothing.
 */
function periodChangeRoute(action: 'close' | 'reopen', summary: string, description: string): Route {
  return route({
    method: 'post',
    path: `/api/periods/{period}/${action}`,
    tag: 'Reports',
    auth: 'admin',
    summary,
    description,
    params: periodParams,
    body: { required: action === 'reopen', content: json(noteBody), json: '16kb' },
    answers: {
      ...ok(
        'The period after the change.',
        schemas.single('PeriodStateEnvelope', 'period', schemas.periodStateSchema, 'A period state.'),
      ),
      400: refused('The period is malformed, before the earliest activity or not started.'),
      409: refused('The rules refuse it; the message names every reason. Nothing changed.'),
      422: refused('The note is missing (reopen) or is not text. Nothing changed.'),
    },
    handler:
      (deps) =>
      async (req, res, { params }) => {
        const now = deps.now();
        const period = await checkedPeriod(deps, params.period, now);
        const note = noteOf(req.body);
        const request = { period, actor: req.principal?.name as string, note, now };
        await changePeriodState(deps, action, request);
        res.json(
          single('period', period, {
            period,
            ...closeStateOf(await findClosedVersion(deps.pool, period)),
            history: await listPeriodHistory(deps.pool, period),
          }),
        );
      },
  });
}

export const periodChangeRoutes = [
  periodChangeRoute(
    'close',
    'Close a period: store its report and journal as the next version',
    'Allowed once the period has ended, every earlier period with activity is closed, 24 h have passed since its end, and a missed-event sweep and a payout sync have completed since its end. The report and journal (with the account names configured now) are stored with a sha256 of their content, who closed it, when, and the data cut-off; they are served unchanged from then on. `note` is optional.',
  ),
  periodChangeRoute(
    'reopen',
    'Reopen the latest closed period',
    'Only the latest closed period; `note` is required. The period then shows its current numbers, and its adjustments leave the next period. Closing it again stores the next version.',
  ),
];

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
