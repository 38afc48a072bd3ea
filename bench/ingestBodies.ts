// Signed ~1.5 KB payment events for the ingest benchmark, shared by its load generators (wrk at full load,
// bench/ingestLoad.ts at a fixed rate): fresh deliveries with one in ten a redelivery of one already sent, as
// the provider's retries produce.

/** The body of one payment.succeeded event, the n-th of this run. */
export function paymentEventBody(run: string, counter: number): string {
  const id = `${run}_${counter}`;
  return JSON.stringify({
    id: `evt_${id}`,
    event_name: 'payment.succeeded',
    account_id: `acc_${counter % 50}`,
    account_type: 'live',
    platform_account_id: 'acc_platform',
    idempotency_key: `idem_${id}`,
    request_id: `req_${id}`,
    version: 'v1',
    data: {
      id: `py_${id}`,
      account_id: `acc_${counter % 50}`,
      amount: 1000 + (counter % 9000),
      currency: 'usd',
      status: 'succeeded',
      capture_strategy: 'automatic',
      captured: true,
      payment_mode: 'ecom',
      fee_amount: 64,
      fees: [
        {
          id: `pyfee_${id}_p`,
          type: 'processing_fee',
          amount: 58,
          remaining_amount: 58,
          currency: 'usd',
          source_configuration_id: 'sfc_visa',
          source_fee_type: 'visa_brand_ecomm',
        },
        {
          id: `pyfee_${id}_f`,
          type: 'platform_fee',
          amount: 6,
          remaining_amount: 6,
          currency: 'usd',
          source_configuration_id: 'sfc_platform',
          source_fee_type: 'platform',
        },
      ],
      application_fee_amount: null,
      amount_refunded: 0,
      refunds: [],
      error_code: null,
      error_description: null,
      checkout_id: null,
      payment_method: {
        card: {
          id: `pm_${id}`,
          brand: 'visa',
          acct_last_four: '4242',
          name: 'Benchmark Customer',
          exp_month: 12,
          exp_year: 2030,
        },
      },
      description: 'Order for the ingest benchmark, padded to a realistic size'.padEnd(140, '.'),
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
      is_test: false,
      metadata: { order_id: `ord_${id}`, customer_ref: `cus_${counter % 1000}`, channel: 'web' },
    },
  });
}

/** Hands out bodies: fresh ones, and one in ten a redelivery of one of the last 5,000. */
export function createBodySource(run: string): () => string {
  const sent: string[] = [];
  let counter = 0;
  return () => {
    if (sent.length > 0 && Math.random() < 0.1)
      return sent[Math.floor(Math.random() * sent.length)] as string;
    counter += 1;
    const text = paymentEventBody(run, counter);
    if (sent.length < 5000) sent.push(text);
    else sent[counter % 5000] = text;
    return text;
  };
}
