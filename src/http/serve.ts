import { createServer, type Server } from 'node:http';
import type { Express } from 'express';

/** Listens with timeouts that keep slow or idle clients from holding sockets; resolves once bound. */
export function serve(app: Express, port: number): Promise<Server> {
  const server = createServer(app);
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
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
