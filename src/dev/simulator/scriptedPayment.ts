import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { calculateFee } from '../../domain/feeFormula.ts';
import { expectedProcessingType, isEffectiveAt } from '../../domain/feeSelection.ts';
import { sign } from '../../ingest/signature.ts';
import { describeIssues } from '../../issues.ts';
import {
  type FeeConfigurationStore,
  type SimulatedConfiguration,
  SimulatorError,
} from './feeConfigurationStore.ts';

const scriptSchema = z.object({
  webhook_url: z.url(),
  secret: z.string().min(1),
  account_id: z.string().min(1),
  amount: z.number().int().min(51).max(99_999_999),
  currency: z.enum(['usd', 'cad']).default('usd'),
  method: z.enum(['card', 'card_present', 'ach']).default('card'),
  brand: z.string().default('visa'),
  expedited: z.boolean().default(false),
});

const id = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;

/**
 * Prices a payment as the provider does (the seed's selection rules and formula over the configurations
 * in force now) and delivers `payment.created` and `payment.succeeded`, signed, to `webhook_url`.
 */
export async function sendScriptedPayment(store: FeeConfigurationStore, body: unknown, now: Date) {
  const parsed = scriptSchema.safeParse(body);
  if (!parsed.success)
    throw new SimulatorError(422, 'invalid_parameter', describeIssues(parsed.error, 'body'));
  const script = parsed.data;
  const configurations = store.all().filter((c) => c.account_id === script.account_id);
  const windows = configurations.map((c) => ({
    ...c,
    feeType: c.fee_type,
    effectiveStart: new Date(c.effective_start),
    effectiveEnd: c.effective_end ? new Date(c.effective_end) : null,
  }));
  const kind = {
    methodKind: script.method,
    cardBrand: script.method === 'ach' ? null : script.brand,
    expedited: script.expedited,
  };
  const processingType = expectedProcessingType(kind, windows, now);
  const pick = (feeType: string | null) =>
    windows.find((c) => c.fee_type === feeType && isEffectiveAt(c, now));
  const fees = [
    ['processing_fee', pick(processingType)],
    ['platform_fee', pick('platform')],
  ].flatMap(([type, configuration]) =>
    configuration ? [feeFrom(type as string, configuration as SimulatedConfiguration, script)] : [],
  );
  const paymentId = id('py');
  const method =
    script.method === 'ach'
      ? { bank_account: { id: id('pm'), acct_last_four: '6789' } }
      : { card: { id: id('pm'), brand: script.brand, acct_last_four: '4242' } };
  const payment = {
    id: paymentId,
    account_id: script.account_id,
    amount: script.amount,
    currency: script.currency,
    capture_strategy: 'automatic',
    captured: true,
    payment_mode: script.method === 'card' ? 'ecom' : script.method,
    expedited: script.method === 'ach' ? script.expedited : undefined,
    fee_amount: fees.reduce((sum, fee) => sum + fee.amount, 0),
    fees,
    application_fee_amount: null,
    amount_refunded: 0,
    refunds: [],
    payment_method: method,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    is_test: true,
  };
  const statuses: number[] = [];
  for (const [eventName, status] of [
    ['payment.created', 'pending'],
    ['payment.succeeded', 'succeeded'],
  ] as const) {
    const envelope = JSON.stringify({
      id: id('evt'),
      event_name: eventName,
      account_id: script.account_id,
      account_type: 'test',
      platform_account_id: 'acc_platform',
      idempotency_key: null,
      request_id: null,
      version: 'v1',
      data: { ...payment, status },
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const response = await fetch(script.webhook_url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'justifi-timestamp': timestamp,
        'justifi-signature': sign(script.secret, timestamp, envelope),
      },
      body: envelope,
    });
    statuses.push(response.status);
  }
  return { payment, webhook_statuses: statuses };
}

function feeFrom(
  type: string,
  configuration: SimulatedConfiguration,
  script: { amount: number; currency: string },
) {
  const amount = calculateFee(script.amount, {
    variableRate: configuration.variable_rate,
    transactionFeeCents: configuration.transaction_fee_cents,
    feeCapCents: configuration.fee_cap_cents,
  });
  return {
    id: id('pyfee'),
    type,
    amount,
    remaining_amount: amount,
    currency: script.currency,
    source_configuration_id: configuration.id,
    source_fee_type: configuration.fee_type,
  };
}
