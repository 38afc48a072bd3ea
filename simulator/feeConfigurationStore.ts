import { randomBytes } from 'node:crypto';
import { isEffectiveAt } from '../src/domain/feeSelection.ts';
import { baseOfBrandType, FEE_TYPES, isBaseFeeType } from '../src/domain/feeTypes.ts';

export type SimulatedConfiguration = {
  id: string;
  account_id: string;
  platform_account_id: string;
  fee_type: string;
  variable_rate: number;
  transaction_fee_cents: number;
  transaction_fee_currency: string;
  fee_cap_cents: number | null;
  effective_start: string;
  effective_end: string | null;
};

export class SimulatorError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const window = (c: SimulatedConfiguration) => ({
  feeType: c.fee_type,
  effectiveStart: new Date(c.effective_start),
  effectiveEnd: c.effective_end ? new Date(c.effective_end) : null,
});

/** The provider's standard fee configurations, with the seed's validation and chaining rules. */
export function createFeeConfigurationStore(now: () => Date, platformAccountId = 'acc_platform') {
  const configurations: SimulatedConfiguration[] = [];
  const ofType = (account: string, feeType: string) =>
    configurations.filter((c) => c.account_id === account && c.fee_type === feeType);
  const activeAt = (account: string, feeType: string, at: Date) =>
    ofType(account, feeType).find((c) => isEffectiveAt(window(c), at)) ?? null;

  return {
    all: () => configurations,
    active: (account: string, feeType: string) => activeAt(account, feeType, now()),
    activeList: (account: string) =>
      configurations.filter((c) => c.account_id === account && isEffectiveAt(window(c), now())),
    history: (account: string, feeType: string) =>
      ofType(account, feeType).sort(
        (a, b) => b.effective_start.localeCompare(a.effective_start) || b.id.localeCompare(a.id),
      ),
    scheduled: (account: string) =>
      configurations.filter((c) => c.account_id === account && new Date(c.effective_start) > now()),

    create(
      account: string,
      feeType: string,
      body: Record<string, unknown>,
      currency = 'usd',
    ): SimulatedConfiguration {
      if (!FEE_TYPES.includes(feeType))
        throw new SimulatorError(404, 'resource_not_found', `unknown fee type ${feeType}`);
      const rate = body.variable_rate;
      if (rate === undefined) throw new SimulatorError(422, 'parameter_missing', 'variable_rate is required');
      if (typeof rate !== 'number' || rate < 0)
        throw new SimulatorError(422, 'invalid_parameter', 'variable_rate must be a number');
      const flat = body.transaction_fee_cents ?? 0;
      const cap = body.fee_cap_cents ?? null;
      if (!Number.isInteger(flat) || (flat as number) < 0)
        throw new SimulatorError(422, 'invalid_parameter', 'transaction_fee_cents must be a whole number');
      if (cap !== null && (!Number.isInteger(cap) || (cap as number) < 0))
        throw new SimulatorError(422, 'invalid_parameter', 'fee_cap_cents must be a whole number');
      const start = body.effective_start === undefined ? now() : new Date(String(body.effective_start));
      if (Number.isNaN(start.getTime()))
        throw new SimulatorError(422, 'invalid_parameter', 'effective_start is not a date');
      let end: Date | null = null;
      if (body.effective_end !== undefined && body.effective_end !== null) {
        if (isBaseFeeType(feeType)) {
          throw new SimulatorError(
            422,
            'effective_end_must_be_nil_for_fee_type',
            `${feeType} cannot be given an effective_end`,
          );
        }
        end = new Date(String(body.effective_end));
        if (Number.isNaN(end.getTime()) || end <= start)
          throw new SimulatorError(
            422,
            'invalid_parameter',
            'effective_end must be later than effective_start',
          );
        if (end <= now())
          throw new SimulatorError(422, 'invalid_parameter', 'effective_end must be in the future');
      }
      const base = baseOfBrandType(feeType);
      if (base && !activeAt(account, base, now())) {
        throw new SimulatorError(
          422,
          'fee_type_must_be_inside_hierarchy',
          `${feeType} needs an active ${base} configuration`,
        );
      }
      // Chaining: the configuration in force at the new start (even one starting that instant) ends there.
      for (const previous of ofType(account, feeType)) {
        const previousStart = new Date(previous.effective_start);
        const previousEnd = previous.effective_end ? new Date(previous.effective_end) : null;
        if (previousStart <= start && (previousEnd === null || previousEnd > start))
          previous.effective_end = start.toISOString();
      }
      // A configuration scheduled later still takes over at its own start.
      const later = ofType(account, feeType)
        .map((c) => new Date(c.effective_start))
        .filter((laterStart) => laterStart > start)
        .sort((a, b) => a.getTime() - b.getTime())[0];
      if (later && (end === null || end > later)) end = later;
      const configuration: SimulatedConfiguration = {
        id: `sfc_${randomBytes(8).toString('hex')}`,
        account_id: account,
        platform_account_id: platformAccountId,
        fee_type: feeType,
        variable_rate: rate,
        transaction_fee_cents: flat as number,
        transaction_fee_currency: currency,
        fee_cap_cents: cap as number | null,
        effective_start: start.toISOString(),
        effective_end: end ? end.toISOString() : null,
      };
      configurations.push(configuration);
      return configuration;
    },
  };
}

export type FeeConfigurationStore = ReturnType<typeof createFeeConfigurationStore>;
