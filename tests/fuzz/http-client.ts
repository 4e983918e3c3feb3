import http from 'node:http';
import type { HttpRequest } from './requests';

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * Sends the request byte for byte (no URL normalisation: `..` and `%00` reach the server as written) on a fresh
 * loopback connection. A server that answers early and closes (413) is fine: the answer counts, not the upload.
 */
export function send(port: number, request: HttpRequest, timeoutMs = 15_000): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...request.headers, Connection: 'close' };
    if (request.body) headers['Content-Length'] = String(request.body.length);
    const req = http.request({ host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent: false });
    let answered = false;
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.end(request.body);
  });
}
