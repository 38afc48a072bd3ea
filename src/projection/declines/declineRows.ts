import {
  cardIdentityOf,
  cardKeyOf,
  classifyDecline,
  type DeclineClassification,
  type DeclineFields,
} from '../../domain/declines.ts';

type Data = Record<string, unknown>;

const objectAt = (data: Data, key: string): Data | null => {
  const value = data[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Data) : null;
};

// Codes arrive as strings, sometimes as numbers (`116`); anything else is not a code.
const codeAt = (data: Data | null, key: string): string | null => {
  const value = data?.[key];
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
};

/**
 * The decline fields of a payment snapshot, wherever the provider put them: on the payment itself (the
 * seed's payment record), else in an `error` object shaped like the seed's card error (`code`, …).
 */
export function declineFieldsOf(data: Data): DeclineFields {
  const error = objectAt(data, 'error');
  const read = (key: string, errorKey = key) => codeAt(data, key) ?? codeAt(error, errorKey);
  return {
    errorCode: read('error_code', 'code'),
    errorDescription: read('error_description', 'message'),
    declineCode: read('decline_code'),
    network: read('network'),
    networkErrorCode: read('network_error_code'),
    networkErrorCategory: read('network_error_category'),
  };
}

const isCardPayment = (data: Data) => {
  const method = objectAt(data, 'payment_method');
  return method !== null && objectAt(method, 'card') !== null && objectAt(method, 'bank_account') === null;
};

/**
 * A card payment's decline, when the snapshot shows one: failed (status or event name), or carrying any
 * decline field. Null for every other snapshot, ACH payments included (their failures are ACH returns).
 */
export function declineOf(data: Data, eventName: string): DeclineClassification | null {
  if (!isCardPayment(data)) return null;
  const fields = declineFieldsOf(data);
  const failed = data.status === 'failed' || eventName === 'payment.failed';
  const carriesDecline =
    fields.declineCode !== null ||
    fields.network !== null ||
    fields.networkErrorCode !== null ||
    fields.networkErrorCategory !== null;
  return failed || carriesDecline ? classifyDecline(fields) : null;
}

export type CardColumns = {
  card_last_four: string | null;
  card_expiry: string | null;
  card_key: string | null;
};

/** The card's identity columns: what "same card" compares. Null for a payment without a card. */
export function cardColumnsOf(data: Data, paymentMethodId: string | null): CardColumns {
  const card = objectAt(objectAt(data, 'payment_method') ?? {}, 'card');
  if (card === null) return { card_last_four: null, card_expiry: null, card_key: null };
  const identity = cardIdentityOf(card);
  return {
    card_last_four: identity.lastFour,
    card_expiry: identity.expiry,
    card_key: cardKeyOf(paymentMethodId, identity),
  };
}

export type DeclineColumns = {
  decline_code: string | null;
  network: string | null;
  network_error_code: string | null;
  network_error_category: string | null;
  retry_advice: string | null;
  advice_scope: string | null;
};

export function declineColumnsOf(data: Data, eventName: string): DeclineColumns {
  const decline = declineOf(data, eventName);
  return {
    decline_code: decline?.declineCode ?? null,
    network: decline?.network ?? null,
    network_error_code: decline?.networkErrorCode ?? null,
    network_error_category: decline?.networkErrorCategory ?? null,
    retry_advice: decline?.advice ?? null,
    advice_scope: decline?.scope ?? null,
  };
}

/** The decline values of a payment delivery that no seed table knows, for `unknown_values`. */
export function unknownDeclineValuesOf(eventName: string, data: Data): { field: string; value: string }[] {
  return declineOf(data, eventName)?.unknownValues ?? [];
}
