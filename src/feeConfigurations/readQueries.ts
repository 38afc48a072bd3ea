import type { Queryable } from '../db/pool.ts';

/**
 * The fee configuration a payment fee names, as synced: the console shows the formula's inputs. The subject is
 * `fee_configurations`; the payment's fees (`payment_fees`, src/projection) only say which ones.
 */
export async function listFeeConfigurationsOfPayment(db: Queryable, paymentId: string) {
  const { rows } = await db.query<Record<string, unknown>>(
    `select c.* from fee_configurations c
      where c.id in (select source_configuration_id from payment_fees where payment_id = $1::text)`,
    [paymentId],
  );
  return rows;
}
