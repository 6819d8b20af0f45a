// Raw HTTP for browser-mode tests: node:http lets a test set any Host / Origin header.
import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json<T = unknown>(): T;
}

export function request(
  port: number,
  pathname: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; host?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: opts.host ?? '127.0.0.1',
        port,
        path: pathname,
        method: opts.method ?? 'GET',
        headers: { ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
        });
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** POST /api/<channel> with the token. */
export function call(
  port: number,
  token: string,
  channel: string,
  input: unknown = {},
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return request(port, `/api/${channel}`, {
    method: 'POST',
    body: JSON.stringify(input),
    headers: { 'x-reflection-token': token, ...headers },
  });
}
