import type { Queryable } from '../db/pool.ts';
import { presentFinding } from '../findings/presentFinding.ts';
import { listFindingsOfPayments } from '../findings/readQueries.ts';
import { findPaymentDetails } from './readQueries.ts';

// Open and resolved findings about the payment or anything of it, newest first.
const FINDINGS_SHOWN = 500;

/**
 * Payments as GET /api/payments/:id shows them (fees, refunds, checkout, forwarding requests, disputes and
 * findings), by id; the changes feed carries the same. A payment not stored is absent.
 */
export async function readPaymentDetails(
  db: Queryable,
  ids: string[],
): Promise<Map<string, Record<string, unknown>>> {
  if (ids.length === 0) return new Map();
  const [details, findings] = await Promise.all([
    findPaymentDetails(db, ids),
    listFindingsOfPayments(db, ids, FINDINGS_SHOWN),
  ]);
  const shown = new Map<string, Record<string, unknown>>();
  for (const [id, { payment, ...related }] of details) {
    const own = findings
      .filter((finding) => finding.payment_id === id)
      .map(({ payment_id: _paymentId, ...finding }) => presentFinding(finding));
    shown.set(id, { ...payment, ...related, findings: own });
  }
  return shown;
}
