import { sign } from '../../../src/ingest/signature.ts';

type Delivery = { eventId: string; paymentId: string; body: string };

// Every tenth send is a redelivery of the delivery sent this many sends before, as the provider redelivers.
const REDELIVERY_EVERY = 10;
const REDELIVERY_DISTANCE = 50;
// Requests allowed in flight at once; the rate is held while a web answers in well under a second.
const MAX_IN_FLIGHT = 200;
const TICK_MS = 10;

/** A payment's deliveries: created, succeeded with its fee, and for every third one a refund and its update. */
function paymentDeliveries(p: number): Delivery[] {
  const paymentId = `py_upgrade_${p}`;
  const fee = (remaining: number) => [
    { id: `pyfee_upgrade_${p}`, type: 'processing_fee', amount: 60, remaining_amount: remaining },
  ];
  const payment = (status: string, minute: number, extra: Record<string, unknown>) => ({
    id: paymentId,
    amount: 1000 + p,
    currency: 'usd',
    status,
    updated_at: `2026-11-02T10:${String(minute).padStart(2, '0')}:00Z`,
    ...extra,
  });
  const events: [string, object][] = [
    ['payment.created', payment('pending', 0, {})],
    ['payment.succeeded', payment('succeeded', 1, { fee_amount: 60, fees: fee(60) })],
  ];
  if (p % 3 === 0) {
    events.push(
      [
        'payment.refunded',
        {
          id: `re_upgrade_${p}`,
          payment_id: paymentId,
          amount: 100,
          status: 'succeeded',
          updated_at: '2026-11-02T10:02:00Z',
          returned_fees: [
            {
              id: `rtfee_upgrade_${p}`,
              payment_fee_id: `pyfee_upgrade_${p}`,
              returned_amount: 5,
              original_amount: 60,
              remaining_amount: 55,
            },
          ],
        },
      ],
      [
        'payment.updated',
        payment('partially_refunded', 3, { amount_refunded: 100, fee_amount: 55, fees: fee(55) }),
      ],
    );
  }
  return events.map(([eventName, data], index) => {
    const eventId = `evt_upgrade_${p}_${index}`;
    const envelope = {
      id: eventId,
      event_name: eventName,
      account_id: 'acc_upgrade',
      account_type: 'test',
      platform_account_id: null,
      idempotency_key: null,
      request_id: null,
      version: 'v1',
      data,
    };
    return { eventId, paymentId, body: JSON.stringify(envelope) };
  });
}

export type PhaseStats = { sent: number; latenciesMs: number[] };

/**
 * Signed deliveries at a steady rate, each sent once and never retried (a drill that retried would hide the
 * failure it looks for), to the web processes in `rotation` in turn, as a load balancer would. The drill
 * edits `rotation` while it runs and names the current phase, whose answers are timed apart.
 */
export function startWebhookLoad(options: { rate: number; secret: string; rotation: string[] }) {
  const sentBodies: Delivery[] = [];
  const pending: Delivery[] = [];
  const answers = new Map<string, number>();
  const phases = new Map<string, PhaseStats>();
  const acknowledged = new Set<string>();
  const payments = new Set<string>();
  let phase = 'start';
  let nextPayment = 0;
  let inFlight = 0;
  const inFlightByTarget = new Map<string, number>();
  let turn = 0;
  let stopped = false;
  const started = Date.now();

  const nextDelivery = (): Delivery => {
    const sends = sentBodies.length;
    if (sends % REDELIVERY_EVERY === REDELIVERY_EVERY - 1 && sends >= REDELIVERY_DISTANCE) {
      return sentBodies[sends - REDELIVERY_DISTANCE] as Delivery;
    }
    if (pending.length === 0) pending.push(...paymentDeliveries(nextPayment++));
    return pending.shift() as Delivery;
  };

  const send = async (delivery: Delivery, target: string, stats: PhaseStats) => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const sentAt = performance.now();
    const answer = await fetch(`${target}/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'justifi-timestamp': timestamp,
        'justifi-signature': sign(options.secret, timestamp, delivery.body),
      },
      body: delivery.body,
      signal: AbortSignal.timeout(10_000),
    }).then(
      async (response) => {
        await response.arrayBuffer();
        return String(response.status);
      },
      (err: Error & { cause?: { code?: string } }) => `no answer (${err.cause?.code ?? err.name})`,
    );
    stats.latenciesMs.push(performance.now() - sentAt);
    answers.set(answer, (answers.get(answer) ?? 0) + 1);
    if (answer === '200') acknowledged.add(delivery.eventId);
  };

  const inFlightRequests = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const due = Math.floor(((Date.now() - started) * options.rate) / 1000) - sentBodies.length;
    for (let i = 0; i < due && inFlight < MAX_IN_FLIGHT && !stopped; i++) {
      const delivery = nextDelivery();
      sentBodies.push(delivery);
      payments.add(delivery.paymentId);
      const target = options.rotation[turn++ % options.rotation.length] as string;
      const stats = phases.get(phase) ?? { sent: 0, latenciesMs: [] };
      phases.set(phase, stats);
      stats.sent += 1;
      inFlight += 1;
      inFlightByTarget.set(target, (inFlightByTarget.get(target) ?? 0) + 1);
      const request = send(delivery, target, stats).finally(() => {
        inFlight -= 1;
        inFlightByTarget.set(target, (inFlightByTarget.get(target) ?? 0) - 1);
        inFlightRequests.delete(request);
      });
      inFlightRequests.add(request);
    }
  }, TICK_MS);

  return {
    setPhase: (name: string) => {
      phase = name;
    },
    sent: () => sentBodies.length,
    /** Requests sent to `target` and not answered yet. */
    inFlightTo: (target: string) => inFlightByTarget.get(target) ?? 0,
    answers,
    phases,
    acknowledged,
    /** Every distinct event id and payment id sent. */
    distinctEvents: () => new Set(sentBodies.map((delivery) => delivery.eventId)),
    payments,
    /** Stops sending and waits for every request in flight to be answered. */
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await Promise.all(inFlightRequests);
    },
  };
}

export type WebhookLoad = ReturnType<typeof startWebhookLoad>;
