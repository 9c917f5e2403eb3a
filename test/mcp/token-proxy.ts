// A forwarding proxy on 127.0.0.1 that adds `Authorization: Bearer <token>` to every
// request, for clients that cannot send a header (the MCP conformance suite). It forwards
// as a transparent reverse proxy would: the proxy's own Host and Origin become the
// server's (so the server sees its own loopback origin), any other Host or Origin passes
// unchanged (so DNS-rebinding checks still see the foreign name). Streams both ways.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenProxy {
  /** The proxied endpoint (same path as the target). */
  readonly url: string;
  close(): Promise<void>;
}

export async function startTokenProxy(target: string, token: string): Promise<TokenProxy> {
  const upstream = new URL(target);
  let own = '';
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (headers.host === own) headers.host = upstream.host;
    if (headers.origin === `http://${own}`) headers.origin = upstream.origin;
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    res.on('close', () => forwarded.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  own = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `http://${own}${upstream.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
