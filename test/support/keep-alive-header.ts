// What an HTTP server tells a client about its kept-alive connection: the `Keep-Alive`
// header of its answer to one request (a POST without a token: a 401 from ptc's server).
import { request } from 'node:http';

export function keepAliveHeader(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { connection: 'keep-alive' } }, (res) => {
      res.resume();
      res.once('end', () => resolve(String(res.headers['keep-alive'])));
    });
    req.once('error', reject);
    req.end('{}');
  });
}
