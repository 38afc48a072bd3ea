import type { Express, Request, RequestHandler } from 'express';
import { z } from 'zod';
import { describeIssues } from '../src/zodIssues.ts';
import { SimulatorError } from './feeConfigurationStore.ts';
import { ledgerOf } from './ledger.ts';
import { paginateList } from './paginate.ts';
import type { PayoutStore } from './payoutStore.ts';
import { dateParameter } from './resourceRoutes.ts';
import type { ResourceStore, StoredResource } from './resourceStore.ts';
import { changePayoutStatus, EVENT_OF_STATUS, notify, sendScriptedPayout } from './scriptedPayout.ts';

type PayoutRouteOptions = {
  payments: ResourceStore;
  payouts: PayoutStore;
  authenticated: RequestHandler;
  platformAccountId: string;
  now: () => Date;
};

const single = (data: { id: string }) => ({ id: data.id, type: 'payout', data, page_info: null });

const ledgerFaultSchema = z.object({ account_id: z.string().min(1), malformed: z.boolean() });

const statusSchema = z.object({
  status: z.enum(['scheduled', 'in_transit', 'paid', 'failed', 'canceled']),
  webhook_url: z.url().optional(),
  secret: z.string().min(1).optional(),
});

/**
 * The payout reads the payout sync uses (`GET /v1/payouts` with its created and deposit filters,
 * `GET /v1/payouts/:id`, `GET /v1/balance_transactions?payout_id=`, and without payout_id the account's whole
 * ledger, `created_after` optional), scoped by the `Sub-Account` header and paginated like the other lists;
 * and the controls `POST /dev/payouts` (build a payout of the account's payments not paid out yet),
 * `POST /dev/payouts/:id/status` (move it on, sending its webhook) and `POST /dev/ledger-faults` (make an
 * account's ledger pages malformed, or well-formed again).
 */
export function installPayoutRoutes(app: Express, options: PayoutRouteOptions) {
  const { payouts, authenticated } = options;
  const accountOf = (req: Request) => req.get('sub-account') || options.platformAccountId;
  // Accounts whose ledger listing answers with a malformed line on every page (POST /dev/ledger-faults).
  const malformedLedgers = new Set<string>();

  app.get('/v1/payouts', authenticated, (req, res) => {
    const listing = payouts.payouts.listing(accountOf(req), {
      createdAfter: dateParameter(req, 'created_after'),
      createdBefore: dateParameter(req, 'created_before'),
    });
    const depositsAfter = dateParameter(req, 'deposits_after');
    const depositsBefore = dateParameter(req, 'deposits_before');
    if (!depositsAfter && !depositsBefore) {
      res.json(paginateList(listing, req.query));
      return;
    }
    const matching: StoredResource[] = [];
    for (let index = 0; index < listing.length; index++) {
      const payout = listing.at(index);
      const depositsAt = new Date(payout.deposits_at as string);
      if ((!depositsAfter || depositsAt >= depositsAfter) && (!depositsBefore || depositsAt < depositsBefore))
        matching.push(payout);
    }
    res.json(paginateList(matching, req.query));
  });

  app.get('/v1/payouts/:id', authenticated, (req, res) => {
    const payout = payouts.payouts.get(req.params.id as string);
    if (!payout || payout.account_id !== accountOf(req))
      throw new SimulatorError(404, 'resource_not_found', 'no such payout');
    res.json(single(payout));
  });

  app.get('/v1/balance_transactions', authenticated, (req, res) => {
    const payoutId = req.query.payout_id;
    if (payoutId === undefined) {
      const account = accountOf(req);
      const page = paginateList(ledgerOf(options, account, dateParameter(req, 'created_after')), req.query);
      // A line without its amount, currency or date: a page the client must refuse whole.
      if (malformedLedgers.has(account)) page.data.push({ id: 'bt_malformed', payout_id: null });
      res.json(page);
      return;
    }
    if (typeof payoutId !== 'string' || payoutId === '')
      throw new SimulatorError(400, 'invalid_parameter', 'payout_id must be given once');
    const payout = payouts.payouts.get(payoutId);
    if (!payout || payout.account_id !== accountOf(req))
      throw new SimulatorError(404, 'resource_not_found', 'no such payout');
    res.json(paginateList(payouts.linesOf(payoutId), req.query));
  });

  app.post('/dev/ledger-faults', (req, res) => {
    const parsed = ledgerFaultSchema.safeParse(req.body ?? {});
    if (!parsed.success)
      throw new SimulatorError(422, 'invalid_parameter', describeIssues(parsed.error, 'body'));
    if (parsed.data.malformed) malformedLedgers.add(parsed.data.account_id);
    else malformedLedgers.delete(parsed.data.account_id);
    res.json({ account_id: parsed.data.account_id, malformed: parsed.data.malformed });
  });

  app.post('/dev/payouts', async (req, res) => {
    res.json(await sendScriptedPayout(options, req.body, options.now()));
  });

  app.post('/dev/payouts/:id/status', async (req, res) => {
    const parsed = statusSchema.safeParse(req.body ?? {});
    if (!parsed.success)
      throw new SimulatorError(422, 'invalid_parameter', describeIssues(parsed.error, 'body'));
    const { status, ...target } = parsed.data;
    const payout = await changePayoutStatus(payouts, req.params.id as string, status, options.now());
    const eventName = EVENT_OF_STATUS[status] ?? 'payout.updated';
    const sent = await notify({ account_id: payout.account_id, ...target }, eventName, payout);
    res.json({ payout, webhook_statuses: sent === null ? [] : [sent] });
  });
}
