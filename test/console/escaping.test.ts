import { parse } from 'node-html-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverPayment, findingsOf } from '../findings/workflow/helpers.ts';
import { API_TOKEN, startTestApp, type TestApp } from '../helpers/app.ts';
import { paymentEvent } from '../helpers/deliveries.ts';
import { deliver, settle } from '../helpers/fixtures.ts';
import { page, signIn, textOf } from './signIn.ts';

// Markup, both quotes, and the syntax of Eta and of other template engines: all of it must come out as text.
const HOSTILE = `<script>alert("x")</script><img src=x onerror='alert(1)'> <%= it.csrfToken %> <%~ it.principal %> {{7*7}} \${7*7}`;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ worker: true });
});
afterAll(() => t.close());

/** The page holds the hostile text as text, and no element or attribute it tried to create. */
function expectInert(html: string) {
  const root = parse(html);
  expect(root.querySelectorAll('script')).toHaveLength(0);
  expect(root.querySelectorAll('img')).toHaveLength(0);
  expect(textOf(html)).toContain(HOSTILE);
}

describe('every value in a console page is escaped', () => {
  it('shows a delivery body, its account and a note holding markup, quotes and template syntax as text', async () => {
    const event = paymentEvent({
      account_id: 'acc_hostile',
      event_name: 'payment.succeeded',
      data: {
        id: 'py_hostile',
        account_id: 'acc_hostile',
        amount: 100,
        currency: 'usd',
        status: 'succeeded',
        fees: [],
        metadata: { note: HOSTILE },
      },
    });
    await deliver(t.app, [JSON.stringify(event)]);
    // An unknown event family is stored and listed by name, whatever its name holds.
    await deliver(t.app, [JSON.stringify(paymentEvent({ event_name: HOSTILE, data: { id: 'xx_1' } }))]);
    await settle(t);
    await deliverPayment(t, 'py_hostile_note', 71);
    const [finding] = await findingsOf(t, API_TOKEN, 'py_hostile_note');

    const admin = await signIn(t, API_TOKEN);
    const findingPage = await page(admin, `/console/findings/${finding?.id}`);
    const noted = await admin
      .post(`/console/findings/${finding?.id}/notes`)
      .type('form')
      .send({ _csrf: findingPage.csrf(), note: HOSTILE });
    expect(noted.status).toBe(303);
    expectInert((await page(admin, `/console/findings/${finding?.id}`)).html);

    const list = await page(admin, '/console/deliveries?account_id=acc_hostile');
    const link = parse(list.html).querySelector('main table a')?.getAttribute('href');
    const delivery = await page(admin, link as string);
    // The body is shown as indented JSON, where the quotes inside the string are escaped by JSON itself.
    expect(textOf(delivery.html)).toContain(JSON.stringify(HOSTILE));
    expect(parse(delivery.html).querySelectorAll('script')).toHaveLength(0);

    const named = await page(admin, '/console/deliveries');
    expectInert(named.html);
    expectInert((await page(admin, `/console/deliveries?event_name=${encodeURIComponent(HOSTILE)}`)).html);
  });
});
