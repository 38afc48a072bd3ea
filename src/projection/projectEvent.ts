import type { Queryable } from '../db/pool.ts';
import type { EventToProject } from './event.ts';
import { familyOf } from './eventFamilies.ts';
import { projectCheckout, projectCheckoutCompletion } from './projectCheckout.ts';
import { projectDispute } from './projectDispute.ts';
import { projectForwarding } from './projectForwarding.ts';
import { projectPayment } from './projectPayment.ts';
import { projectRefund } from './projectRefund.ts';

/**
 * Applies one stored event to the projection its `data` belongs to (routed by the object's shape, see
 * `familyOf`). Running it twice changes nothing. Returns the payments whose reconciliation the change may
 * affect.
 */
export async function projectEvent(db: Queryable, event: EventToProject): Promise<string[]> {
  switch (familyOf(event.eventName, event.data)) {
    case 'payment':
      return [await projectPayment(db, event, event.data)];
    case 'refund':
      return [await projectRefund(db, event, event.data)];
    case 'checkout':
      return projectCheckout(db, event, event.data);
    case 'checkout_completion':
      return projectCheckoutCompletion(db, event, event.data);
    case 'dispute':
      return [await projectDispute(db, event, event.data)];
    case 'forwarding':
      await projectForwarding(db, event, event.data);
      return [];
    case 'other':
      return [];
  }
}
