import { connect, createServer, type NetConnectOpts, type Server, type Socket } from 'node:net';
import path from 'node:path';

/** Where Postgres listens: a host and port, or the socket file in the directory a percent-encoded path names. */
function upstreamOf(target: URL): NetConnectOpts {
  const socketDirectory = decodeURIComponent(target.hostname);
  return socketDirectory.startsWith('/')
    ? { path: path.join(socketDirectory, `.s.PGSQL.${target.port}`) }
    : { port: Number(target.port), host: target.hostname };
}

/** A TCP proxy in front of Postgres that a test can cut and restore, to stage a real database outage. */
export async function startProxy(targetUrl: string) {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;

  const open = () =>
    new Promise<void>((resolve) => {
      if (server) return resolve();
      server = createServer((client) => {
        const upstream = connect(upstreamOf(target));
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => socket.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        const address = server?.address();
        if (typeof address === 'object' && address) port = address.port;
        resolve();
      });
    });

  await open();
  const url = () => {
    const proxied = new URL(targetUrl);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(port);
    return proxied.toString();
  };
  return {
    url,
    /** Refuses new connections and drops the open ones, as a stopped server would. */
    cut: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        if (server) server.close(() => resolve());
        else resolve();
        server = null;
      }),
    restore: open,
  };
}
