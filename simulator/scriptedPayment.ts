import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { calculateFee } from '../src/domain/feeFormula.ts';
import { expectedProcessingType, isEffectiveAt } from '../src/domain/feeSelection.ts';
import { describeIssues } from '../src/zodIssues.ts';
import {
  type FeeConfigurationStore,
  type SimulatedConfiguration,
  SimulatorError,
} from './feeConfigurationStore.ts';
import type { ResourceStore, StoredResource } from './resourceStore.ts';
import { sendWebhook } from './webhook.ts';

const scriptSchema = z.object({
  /** A chosen payment id, so a test can name it in `dropWebhooks` beforehand; generated when absent. */
  id: z
    .string()
    .regex(/^py_[A-Za-z0-9_]+$/, 'must be py_ followed by letters, digits or _')
    .optional(),
  webhook_url: z.url().optional(),
  secret: z.string().min(1).optional(),
  /** Store the payment (the API shows it) but deliver no webhook: the provider gave up on them. */
  drop_webhooks: z.boolean().default(false),
  account_id: z.string().min(1),
  amount: z.number().int().min(51).max(99_999_999),
  currency: z.enum(['usd', 'cad']).default('usd'),
  method: z.enum(['card', 'card_present', 'ach']).default('card'),
  brand: z.string().default('visa'),
  expedited: z.boolean().default(false),
});

export type PaymentScript = Omit<
  z.infer<typeof scriptSchema>,
  'id' | 'webhook_url' | 'secret' | 'drop_webhooks'
>;

export const newId = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;

/**
 * Prices payments of one sub account as the provider does: the seed's selection rules and formula over
 * the configurations in force at the payment's creation. Built once per account so seeding 100,000
 * payments does not rebuild the configuration windows each time.
 */
export function createPaymentPricer(store: FeeConfigurationStore, account: string) {
  const windows = store
    .all()
    .filter((c) => c.account_id === account)
    .map((c) => ({
      ...c,
      feeType: c.fee_type,
      effectiveStart: new Date(c.effective_start),
      effectiveEnd: c.effective_end ? new Date(c.effective_end) : null,
    }));
  return (script: PaymentScript, at: Date, paymentId: string): StoredResource => {
    const kind = {
      methodKind: script.method,
      cardBrand: script.method === 'ach' ? null : script.brand,
      expedited: script.expedited,
    };
    const processingType = expectedProcessingType(kind, windows, at);
    const pick = (feeType: string | null) =>
      windows.find((c) => c.fee_type === feeType && isEffectiveAt(c, at));
    const fees = [
      ['processing_fee', pick(processingType)],
      ['platform_fee', pick('platform')],
    ].flatMap(([type, configuration]) =>
      configuration ? [feeFrom(type as string, configuration as SimulatedConfiguration, script)] : [],
    );
    const method =
      script.method === 'ach'
        ? { bank_account: { id: newId('pm'), acct_last_four: '6789' } }
        : { card: { id: newId('pm'), brand: script.brand, acct_last_four: '4242' } };
    return {
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
      created_at: at.toISOString(),
      updated_at: at.toISOString(),
      is_test: true,
    };
  };
}

/**
 * Prices a payment (configurations in force now) and records `payment.created` and `payment.succeeded`
 * in the payments store, delivering each, signed, to `webhook_url` unless its webhooks are dropped (by
 * `drop_webhooks` or an earlier `dropWebhooks` of its id): then the API alone knows the payment.
 */
export async function sendScriptedPayment(
  stores: {
    feeConfigurations: FeeConfigurationStore;
    payments: ResourceStore;
    droppedPaymentIds: Set<string>;
  },
  body: unknown,
  now: Date,
) {
  const parsed = scriptSchema.safeParse(body);
  if (!parsed.success)
    throw new SimulatorError(422, 'invalid_parameter', describeIssues(parsed.error, 'body'));
  const { id, webhook_url: webhookUrl, secret, drop_webhooks: dropRequested, ...script } = parsed.data;
  if (id && stores.payments.get(id))
    throw new SimulatorError(422, 'invalid_parameter', `id: ${id} already exists`);
  const paymentId = id ?? newId('py');
  const drop = dropRequested || stores.droppedPaymentIds.has(paymentId);
  if (!drop && (!webhookUrl || !secret))
    throw new SimulatorError(
      422,
      'parameter_missing',
      'webhook_url and secret are required to send webhooks',
    );
  const payment = createPaymentPricer(stores.feeConfigurations, script.account_id)(script, now, paymentId);
  const statuses: number[] = [];
  for (const [eventName, status] of [
    ['payment.created', 'pending'],
    ['payment.succeeded', 'succeeded'],
  ] as const) {
    const state = { ...payment, status };
    // Stored before the delivery, as the provider commits a state before it publishes its event.
    stores.payments.put(state);
    if (drop || !webhookUrl || !secret) continue;
    statuses.push(
      await sendWebhook(
        { url: webhookUrl, secret },
        { eventName, accountId: script.account_id, data: state },
      ),
    );
  }
  return { payment, webhook_statuses: statuses, webhooks_dropped: drop };
}

function feeFrom(type: string, configuration: SimulatedConfiguration, script: PaymentScript) {
  const amount = calculateFee(script.amount, {
    variableRate: configuration.variable_rate,
    transactionFeeCents: configuration.transaction_fee_cents,
    feeCapCents: configuration.fee_cap_cents,
  });
  return {
    id: newId('pyfee'),
    type,
    amount,
    remaining_amount: amount,
    currency: script.currency,
    source_configuration_id: configuration.id,
    source_fee_type: configuration.fee_type,
  };
}
