import type { Queryable } from '../db/pool.ts';
import { type EventFamily, familyOf } from '../domain/eventFamilies.ts';
import { projectCheckout } from './projectCheckout.ts';
import { projectForwarding } from './projectForwarding.ts';
import { projectPayment } from './projectPayment.ts';
import { projectRefund } from './projectRefund.ts';

export type EventToProject = {
  rowId: number;
  eventName: string;
  accountId: string;
  accountType: string;
  receivedAt: Date;
  data: Record<string, unknown>;
};

/** Applies one stored event to the projections of its family. Running it twice changes nothing. */
export async function projectEvent(db: Queryable, event: EventToProject): Promise<EventFamily> {
  const family = familyOf(event.eventName);
  switch (family) {
    case 'payment':
      await projectPayment(db, event, event.data);
      break;
    case 'refund':
      // payment.refunded is documented with a refund; a payment object (with refunds[]) is handled too.
      if (typeof event.data.id === 'string' && event.data.id.startsWith('py_')) {
        await projectPayment(db, event, event.data);
      } else {
        await projectRefund(db, event, event.data);
      }
      break;
    case 'checkout':
      await projectCheckout(db, event, event.data);
      break;
    case 'forwarding':
      await projectForwarding(db, event, event.data);
      break;
    case 'other':
      break;
  }
  return family;
}
