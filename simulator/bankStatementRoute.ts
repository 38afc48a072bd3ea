import type { Express } from 'express';
import { z } from 'zod';
import { describeIssues } from '../src/zodIssues.ts';
import { renderBankStatement } from './bankStatementFile.ts';
import { SimulatorError } from './feeConfigurationStore.ts';
import { listPaidPayouts, type PayoutStore } from './payoutStore.ts';

const CONTENT_TYPES = { csv: 'text/csv', camt053: 'application/xml', bai2: 'text/plain' } as const;

// Comma-separated payout ids, e.g. `drop=po_1,po_2`.
const idList = z
  .string()
  .transform((value) => value.split(',').filter((id) => id !== ''))
  .optional();
const day = z.iso.date().optional();

const querySchema = z
  .object({
    format: z.enum(['csv', 'camt053', 'bai2']),
    account_id: z.string().min(1).optional(),
    drop: idList,
    alter: idList,
    covers_from: day,
    covers_to: day,
  })
  .refine((query) => (query.covers_from === undefined) === (query.covers_to === undefined), {
    message: 'covers_to: given together with covers_from',
  });

/**
 * `GET /dev/bank-statement?format=csv|camt053|bai2`: the bank statement of the simulator's paid payouts (of one
 * account, or all), one credit per payout on its deposit day, as a bank exports it. `drop` leaves payouts'
 * credits out, `alter` makes them a cent higher; `covers_from`/`covers_to` state the dates covered.
 */
export function installBankStatementRoute(app: Express, payouts: PayoutStore) {
  app.get('/dev/bank-statement', (req, res) => {
    const parsed = querySchema.safeParse(req.query);
    if (!parsed.success)
      throw new SimulatorError(422, 'invalid_parameter', describeIssues(parsed.error, 'query'));
    const query = parsed.data;
    const file = renderBankStatement(query.format, listPaidPayouts(payouts, query.account_id), {
      drop: query.drop,
      alter: query.alter,
      covers:
        query.covers_from && query.covers_to ? { from: query.covers_from, to: query.covers_to } : undefined,
    });
    res.type(CONTENT_TYPES[query.format]).send(file);
  });
}
