import { randomBytes } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { installBankStatementRoute } from './bankStatementRoute.ts';
import { installDevRoutes } from './devRoutes.ts';
import { createFeeConfigurationStore, SimulatorError } from './feeConfigurationStore.ts';
import { paginateList } from './paginate.ts';
import { installPayoutRoutes } from './payoutRoutes.ts';
import { createPayoutStore, listPaidPayouts, type SimulatedLine } from './payoutStore.ts';
import { installResourceRoutes } from './resourceRoutes.ts';
import { asStoredResource, createResourceStore } from './resourceStore.ts';
import { sendScriptedPayment } from './scriptedPayment.ts';
import { type SeedPaymentsOptions, seedPayments } from './seedPayments.ts';

export type SimulatorOptions = { clientId: string; clientSecret: string; now?: () => Date };

const TOKEN_LIFETIME_MS = 24 * 3600 * 1000;
const PLATFORM_ACCOUNT_ID = 'acc_platform';

/**
 * A stand-in for the provider's API: OAuth client credentials, the five fee configuration endpoints with
 * the seed's rules, and the payment and forwarding request reads the missed-event sweep pages through;
 * plus test controls (injected failures, revoked tokens, rewritten history, states never delivered) and
 * `POST /dev/payments`, which prices a payment with the configurations and sends its signed webhooks;
 * and payouts with their balance transactions, `POST /dev/payouts` paying out those payments (payoutRoutes.ts).
 */
export function createSimulator(options: SimulatorOptions) {
  const now = options.now ?? (() => new Date());
  const store = createFeeConfigurationStore(now, PLATFORM_ACCOUNT_ID);
  const payments = createResourceStore();
  const forwardingRequests = createResourceStore();
  const payouts = createPayoutStore();
  const droppedPaymentIds = new Set<string>();
  const tokens = new Map<string, number>();
  const failures: { status: number; code: string | null }[] = [];
  const requests: string[] = [];
  const app: Express = express();
  app.use(express.json());

  app.use((req, res, next) => {
    requests.push(`${req.method} ${req.path}`);
    const failure = failures.shift();
    if (!failure) return next();
    res.status(failure.status).json({ error: { code: failure.code, message: 'injected failure' } });
  });

  app.post('/oauth/token', (req, res) => {
    if (req.body?.client_id !== options.clientId || req.body?.client_secret !== options.clientSecret) {
      throw new SimulatorError(401, 'not_authenticated', 'unknown client credentials');
    }
    const token = randomBytes(16).toString('hex');
    tokens.set(token, now().getTime() + TOKEN_LIFETIME_MS);
    res.json({ access_token: token });
  });

  const authenticated: RequestHandler = (req, _res, next) => {
    const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    const expiresAt = token ? tokens.get(token) : undefined;
    if (!expiresAt || expiresAt <= now().getTime())
      throw new SimulatorError(401, 'not_authenticated', 'missing or expired token');
    next();
  };
  const envelope = (data: unknown) => ({
    id: (data as { id?: string }).id ?? null,
    type: 'standard_fee_configuration',
    data,
    page_info: null,
  });
  const base = '/v1/sub_accounts/:account/fee_configurations';

  app.get(base, authenticated, (req, res) => {
    res.json(paginateList(store.activeList(req.params.account as string), req.query));
  });
  app.get(`${base}/scheduled`, authenticated, (req, res) => {
    res.json(paginateList(store.scheduled(req.params.account as string), req.query));
  });
  app.get(`${base}/:feeType/history`, authenticated, (req, res) => {
    res.json(
      paginateList(store.history(req.params.account as string, req.params.feeType as string), req.query),
    );
  });
  app.get(`${base}/:feeType`, authenticated, (req, res) => {
    const active = store.active(req.params.account as string, req.params.feeType as string);
    if (!active) throw new SimulatorError(404, 'resource_not_found', 'no active configuration of that type');
    res.json(envelope(active));
  });
  app.post(`${base}/:feeType`, authenticated, (req, res) => {
    res
      .status(201)
      .json(
        envelope(store.create(req.params.account as string, req.params.feeType as string, req.body ?? {})),
      );
  });
  installResourceRoutes(app, {
    payments,
    forwardingRequests,
    authenticated,
    platformAccountId: PLATFORM_ACCOUNT_ID,
  });
  installPayoutRoutes(app, {
    payments,
    payouts,
    authenticated,
    platformAccountId: PLATFORM_ACCOUNT_ID,
    now,
  });

  const controls = {
    /** `POST /dev/payments`: price, store and (unless dropped) deliver a payment's webhooks. */
    sendPayment: (body: unknown) =>
      sendScriptedPayment({ feeConfigurations: store, payments, droppedPaymentIds }, body, now()),
    /** Adds or replaces a payment state without any webhook: a newer state that was never delivered. */
    putPayment: (object: unknown) => {
      const payment = asStoredResource(structuredClone(object), 'payment');
      payments.put(payment);
      return payment;
    },
    /** Adds or replaces a forwarding request without any webhook. */
    putForwardingRequest: (object: unknown) => {
      const request = asStoredResource(structuredClone(object), 'forwarding_request');
      forwardingRequests.put(request);
      return request;
    },
    /** Later `POST /dev/payments` with these ids store the payment but deliver no webhook. */
    dropWebhooks: (paymentIds: string[]) => {
      for (const id of paymentIds) droppedPaymentIds.add(id);
    },
    /** `count` succeeded card payments of `account`, created evenly over the window, without webhooks. */
    seedPayments: (count: number, account: string, seedOptions: SeedPaymentsOptions) =>
      seedPayments({ feeConfigurations: store, payments }, count, account, seedOptions),
  };
  installDevRoutes(app, controls);
  installBankStatementRoute(app, payouts);

  const errors: ErrorRequestHandler = (err, _req, res, _next) => {
    if (err instanceof SimulatorError)
      res.status(err.status).json({ error: { code: err.code, message: err.message } });
    // express.json's own refusals (malformed JSON, too large) are the caller's mistake, not a 500.
    else if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500)
      res.status(err.status).json({ error: { code: 'invalid_parameter', message: 'unreadable JSON body' } });
    else
      res
        .status(500)
        .json({ error: { code: 'internal_server_error', message: String(err?.message ?? err) } });
  };
  app.use(errors);

  return {
    app,
    store,
    /** Payments and forwarding requests as the API lists them (latest state of each). */
    payments,
    forwardingRequests,
    /** Payouts and their lines, and which payment each paid out (see `POST /dev/payouts`). */
    payouts,
    /** The paid payouts of an account (or all), oldest deposit first: what a bank statement shows. */
    paidPayouts: (accountId?: string) => listPaidPayouts(payouts, accountId),
    /** Adds or replaces a payout state, and its lines when given, as the API will list them; no webhook. */
    putPayout: (object: unknown, lines?: SimulatedLine[]) => {
      const payout = asStoredResource(structuredClone(object), 'payout');
      payouts.put(payout, lines && structuredClone(lines));
      return payout;
    },
    ...controls,
    /** Paths requested so far, e.g. `GET /v1/sub_accounts/acc/fee_configurations/platform/history`. */
    requests,
    /** The next `count` requests fail with `status` (and the error `code`, if given). */
    failNext(count: number, status: number, code: string | null = null) {
      for (let index = 0; index < count; index++) failures.push({ status, code });
    },
    /** Every issued token stops working, as after a revocation: the next call answers 401. */
    revokeTokens() {
      tokens.clear();
    },
    /** Misbehaviour the real API must never show: a stored configuration changed or removed. */
    rewrite(id: string, fields: Record<string, unknown>) {
      const configuration = store.all().find((c) => c.id === id);
      if (configuration) Object.assign(configuration, fields);
    },
    remove(id: string) {
      const all = store.all();
      const index = all.findIndex((c) => c.id === id);
      if (index >= 0) all.splice(index, 1);
    },
  };
}

export type Simulator = ReturnType<typeof createSimulator>;
