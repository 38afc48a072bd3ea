import { liveRoute, readyRoute } from '../health.ts';
import { metricsRoute } from '../metricsRoutes.ts';
import { documentRoute, viewerFileRoute, viewerRoute } from '../openapi/routes.ts';
import { importStatementRoute, statementsRoute } from './bankStatements.ts';
import { changesRoute } from './changes.ts';
import { declinesRoute } from './declines.ts';
import { disputesRoute } from './disputes.ts';
import { eventRoute } from './events.ts';
import { findingAuditTrailRoute } from './findingAuditTrail.ts';
import { changeFindingRoute, findingRoute, listFindingsRoute } from './findings.ts';
import { startJobRoutes, unknownJobRoute } from './jobs.ts';
import { achReturnsRoute, alertsRoute } from './opsSignals.ts';
import { paymentRoute, paymentsRoute } from './payments.ts';
import { payoutCsvRoute, payoutRoute, payoutsRoute } from './payouts.ts';
import { periodChangeRoutes } from './periodCloses.ts';
import { journalRoute } from './periodJournal.ts';
import { periodFileRoutes, periodRoute, periodsRoute } from './periods.ts';
import { reportRoutes, reportsRoute } from './reports.ts';
import type { Route } from './route.ts';
import { statusRoute } from './status.ts';
import { subscriptionRoutes } from './subscriptions.ts';
import { webhookRoute } from './webhooks.ts';

/** Every route of `/webhooks`, the health checks and `/api`, in the order the document lists them. */
export const routes: readonly Route[] = [
  webhookRoute,
  liveRoute,
  readyRoute,
  metricsRoute,
  documentRoute,
  viewerRoute,
  viewerFileRoute,
  statusRoute,
  eventRoute,
  paymentRoute,
  listFindingsRoute,
  findingAuditTrailRoute,
  findingRoute,
  changeFindingRoute,
  alertsRoute,
  achReturnsRoute,
  ...startJobRoutes,
  unknownJobRoute,
  payoutsRoute,
  payoutRoute,
  payoutCsvRoute,
  disputesRoute,
  declinesRoute,
  reportsRoute,
  ...reportRoutes,
  importStatementRoute,
  statementsRoute,
  periodsRoute,
  periodRoute,
  ...periodChangeRoutes,
  ...periodFileRoutes,
  journalRoute,
  changesRoute,
  paymentsRoute,
  ...subscriptionRoutes,
];
