import type { Queryable } from '../db/pool.ts';
import { familyOf } from '../domain/eventFamilies.ts';
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

/**
 * Applies one stored event to the projections of its family. Running it twice changes nothing. Returns
 * the payments whose reconciliation the change may affect.
 */
export async function projectEvent(db: Queryable, event: EventToProject): Promise<string[]> {
  switch (familyOf(event.eventName)) {
    case 'payment':
      return [await projectPayment(db, event, event.data)];
    case 'refund':
      // payment.refunded is documented with a refund; a payment object (with refunds[]) is handled too.
      if (typeof event.data.id === 'string' && event.data.id.startsWith('py_')) {
        return [await projectPayment(db, event, event.data)];
      }
      return [await projectRefund(db, event, event.data)];
    case 'checkout':
      return projectCheckout(db, event, event.data);
    case 'forwarding':
      await projectForwarding(db, event, event.data);
      return [];
    case 'other':
      return [];
  }
}
