import { createServer, type RequestListener, type Server } from 'node:http';

/**
 * Listens with timeouts that keep slow or idle clients from holding sockets; resolves once bound. Takes the
 * Express app itself or the web role's listener (api/app.ts `createWebListener`): the timeouts belong to
 * the server, so they hold for requests Express never sees.
 */
export function serve(
  listener: RequestListener,
  port: number,
  timeouts = { headersMs: 10_000, requestMs: 30_000, checkEveryMs: 1_000 },
): Promise<Server> {
  // Timeouts are checked every `checkEveryMs` (Node's default is 30 s, too coarse to stop slow clients).
  const server = createServer({ connectionsCheckingInterval: timeouts.checkEveryMs }, listener);
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = timeouts.requestMs;
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve(server));
  });
}

/** Stops accepting, lets in-flight requests finish, then drops idle keep-alive sockets. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
