// A local stand-in for a model provider's HTTP API: node:http on 127.0.0.1, port 0,
// started and stopped by the test. Every request body is checked against the rules the
// provider documents (a `validate` function returns the problems); a request with
// problems gets the provider's 400 error shape, as the real API would answer, so the
// real client library throws. Valid requests get the next scripted reply.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** One scripted reply: a body, or a function of the request body (which may compute it asynchronously). */
export type Reply = JsonObject | ((request: JsonObject) => JsonObject | Promise<JsonObject>);

export interface MockProvider {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** Every request received, in order, with the problems found in it. */
  readonly requests: { readonly path: string; readonly body: JsonObject; readonly problems: readonly string[] }[];
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<JsonObject> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonObject;
}

export async function startMockProvider(options: {
  /** The request path replies are scripted for, e.g. `/v1/messages`. */
  readonly routes: Readonly<
    Record<string, { readonly validate: (body: JsonObject) => string[]; readonly replies: Reply[] }>
  >;
  /** The error body the provider sends with a 400. */
  readonly errorBody: (message: string) => JsonObject;
}): Promise<MockProvider> {
  const requests: MockProvider['requests'][number][] = [];
  const served = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    void (async () => {
      const path = (request.url ?? '').split('?')[0] ?? '';
      const route = options.routes[path];
      const send = (status: number, body: JsonObject): void => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (route === undefined || request.method !== 'POST')
        return send(404, options.errorBody(`no route ${request.method} ${path}`));
      const body = await readBody(request);
      const problems = route.validate(body);
      requests.push({ path, body, problems });
      if (problems.length > 0) return send(400, options.errorBody(problems.join('; ')));
      const index = served.get(path) ?? 0;
      served.set(path, index + 1);
      const reply = route.replies[index];
      if (reply === undefined) return send(500, options.errorBody(`no scripted reply #${index + 1} for ${path}`));
      return send(200, typeof reply === 'function' ? await reply(body) : reply);
    })().catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify(options.errorBody(String(error))));
    });
  });
  // The stand-in never closes an idle kept-alive socket itself (Node's default does after
  // 5 s): on a loaded machine the clients (maxRetries 0 against it) could send their next
  // request on a socket the server was closing just then and fail with "Connection error.".
  // close() still ends the idle ones.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

export const isObject = (v: Json | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const asArray = (v: Json | undefined): Json[] => (Array.isArray(v) ? v : []);
