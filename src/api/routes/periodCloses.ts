import type { PeriodAction } from '../../close/periods.ts';
import * as schemas from '../openapi/responses.ts';
import { changePeriodState } from '../periodAnswers.ts';
import { single } from './envelope.ts';
import { noteBody } from './params.ts';
import { periodParams } from './periods.ts';
import { jsonBody, ok, type Route, refused, route } from './route.ts';

/**
 * `POST /api/periods/:period/close` or `/reopen` (admin tokens only, as every change), answered with the
 * period's state and history after the change. A refusal by the rules is 409 naming every reason, a reopen
 * without a note 422; either changes nothing.
 */
function periodChangeRoute(action: PeriodAction, summary: string, description: string): Route {
  return route({
    method: 'post',
    path: `/api/periods/{period}/${action}`,
    tag: 'Reports',
    auth: 'admin',
    summary,
    description,
    params: periodParams,
    body: jsonBody(noteBody, { required: action === 'reopen' }),
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
      async (req, res, { params, body }) => {
        const actor = req.principal?.name as string;
        const note = body.note || null;
        const state = await changePeriodState(deps, action, { period: params.period, actor, note });
        res.json(single('period', state.period, state));
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
