import type { Express, Request, RequestHandler } from 'express';
import { SimulatorError } from './feeConfigurationStore.ts';
import { paginateList } from './paginate.ts';
import type { ResourceStore } from './resourceStore.ts';

type ResourceRouteOptions = {
  payments: ResourceStore;
  forwardingRequests: ResourceStore;
  authenticated: RequestHandler;
  /** Lists without a `Sub-Account` header are the platform's own account, as the seed scopes requests. */
  platformAccountId: string;
};

const single = (type: string, data: { id: string }) => ({ id: data.id, type, data, page_info: null });

/** An optional ISO timestamp query parameter; anything else is a 400 naming it. */
export function dateParameter(req: Request, name: string): Date | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  const at = typeof value === 'string' ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime()))
    throw new SimulatorError(400, 'invalid_parameter', `${name} must be an ISO 8601 timestamp`);
  return at;
}

/**
 * The read endpoints the missed-event sweep uses: payments and forwarding requests of the sub account the
 * `Sub-Account` header names, newest first, with the seed's pagination, and each one by id.
 */
export function installResourceRoutes(app: Express, options: ResourceRouteOptions) {
  const { payments, forwardingRequests, authenticated } = options;
  const accountOf = (req: Request) => req.get('sub-account') || options.platformAccountId;

  app.get('/v1/payments', authenticated, (req, res) => {
    res.json(paginateList(payments.listing(accountOf(req)), req.query));
  });

  // The header is optional here; when it names another account the payment is not found, as on the API.
  app.get('/v1/payments/:id', authenticated, (req, res) => {
    const payment = payments.get(req.params.id as string);
    const header = req.get('sub-account');
    if (!payment || (header && payment.account_id !== header))
      throw new SimulatorError(404, 'resource_not_found', 'no such payment');
    res.json(single('payment', payment));
  });

  // Created in [created_after, created_before): start-inclusive, end-exclusive like every window in Tally.
  app.get('/v1/forwarding/requests', authenticated, (req, res) => {
    const listing = forwardingRequests.listing(accountOf(req), {
      createdAfter: dateParameter(req, 'created_after'),
      createdBefore: dateParameter(req, 'created_before'),
    });
    const paymentMethodId = req.query.payment_method_id;
    if (paymentMethodId === undefined) {
      res.json(paginateList(listing, req.query));
      return;
    }
    if (typeof paymentMethodId !== 'string')
      throw new SimulatorError(400, 'invalid_parameter', 'payment_method_id must be given once');
    // A rarely used filter: a scan of the account's list is acceptable here.
    const matching = [];
    for (let index = 0; index < listing.length; index++) {
      const request = listing.at(index);
      if (request.payment_method_id === paymentMethodId) matching.push(request);
    }
    res.json(paginateList(matching, req.query));
  });

  app.get('/v1/forwarding/requests/:id', authenticated, (req, res) => {
    const request = forwardingRequests.get(req.params.id as string);
    const header = req.get('sub-account');
    if (!request || (header && request.account_id !== header))
      throw new SimulatorError(
        404,
        'forwarding_request_not_found',
        'no such forwarding request on this sub account',
      );
    res.json(single('forwarding_request', request));
  });
}
