import { lookup } from 'node:dns/promises';
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { HttpError } from './errors.ts';

export interface SafeFetchOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Whole-request deadline (default 15 s). */
  timeoutMs?: number;
  /** Response body cap in bytes (default 10 MB). */
  maxBytes?: number;
  /**
   * `host:port` pairs allowed even though they resolve to a private address. Only for explicit test
   * configuration (a loopback test server); empty in production.
   */
  allowedHosts?: string[];
  signal?: AbortSignal;
}

export interface SafeResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The address the connection was pinned to. */
  address: string;
  text(): string;
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64],
  ['2001::', 32], ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) blocked.addSubnet(net, prefix, 'ipv6');
// Kept apart: BlockList checks IPv4 addresses against IPv6 rules in their mapped form, so a
// ::ffff:0:0/96 rule in `blocked` would refuse every IPv4 address.
const ipv4Mapped = new BlockList();
ipv4Mapped.addSubnet('::ffff:0:0', 96, 'ipv6');

/**
 * True for addresses a server-side fetch of a user-supplied URL may reach: not private, loopback,
 * link-local (cloud metadata), CGNAT, multicast, reserved, documentation, or IPv4-mapped/translated IPv6.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && ipv4Mapped.check(address, 'ipv6')) return false;
  return !blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const refuse = (message: string) => new HttpError(400, 'URL_NOT_ALLOWED', message);

/**
 * Fetches a user-supplied URL without letting it reach the host's network: http(s) only, the host is
 * resolved once and the connection pinned to a checked address, redirects are refused, and body size
 * and time are capped. Throws HttpError: 400 URL_NOT_ALLOWED, 413 PAYLOAD_TOO_LARGE, 502/504 upstream.
 */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions = {}): Promise<SafeResponse> {
  let url: URL;
  try { url = new URL(rawUrl); } catch { throw refuse('Invalid URL'); }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse(`Only http and https URLs are allowed, not ${url.protocol}`);
  if (url.username || url.password) throw refuse('URLs with credentials are not allowed');
  // WHATWG parsing has already turned decimal/octal/hex IPv4 forms into dotted quads.
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const exempt = (options.allowedHosts ?? []).includes(`${hostname}:${port}`);
  const address = await resolveOnce(hostname, exempt);

  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const pinned: LookupFunction = (_host, opts, callback) => {
    const family = isIP(address);
    if ((opts as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;

  return new Promise<SafeResponse>((resolve, reject) => {
    const fail = (error: Error) => { req.destroy(); reject(error); };
    const timer = setTimeout(() => fail(new HttpError(504, 'UPSTREAM_TIMEOUT', `Fetching ${url.host} timed out after ${timeoutMs} ms`)), timeoutMs);
    const onAbort = () => fail(new HttpError(499, 'CLIENT_CLOSED', 'Fetch aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => { clearTimeout(timer); options.signal?.removeEventListener('abort', onAbort); };
    let req: ClientRequest;
    try {
      req = send(url, { method: options.method ?? 'GET', headers: options.headers, lookup: pinned, agent: false }, (res) => {
        if ((res.statusCode ?? 0) >= 300 && (res.statusCode ?? 0) < 400) {
          done();
          res.resume();
          return fail(refuse(`Redirects are not allowed (status ${res.statusCode} to ${res.headers.location ?? 'unknown'})`));
        }
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > maxBytes) { done(); return fail(new HttpError(413, 'PAYLOAD_TOO_LARGE', `Response exceeds ${maxBytes} bytes`)); }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) { done(); return fail(new HttpError(413, 'PAYLOAD_TOO_LARGE', `Response exceeds ${maxBytes} bytes`)); }
          chunks.push(chunk);
        });
        res.on('end', () => {
          done();
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, address, text: () => body.toString('utf8') });
        });
        res.on('error', (error) => { done(); fail(new HttpError(502, 'UPSTREAM_ERROR', `Reading from ${url.host} failed: ${error.message}`)); });
      });
    } catch (error) {
      // request() throws synchronously on an invalid method or header (e.g. CR/LF in a value).
      done();
      return reject(new HttpError(400, 'INVALID_REQUEST', `Invalid request: ${(error as Error).message}`));
    }
    req.on('error', (error) => { done(); reject(HttpError.is(error) ? error : new HttpError(502, 'UPSTREAM_ERROR', `Fetching ${url.host} failed: ${error.message}`)); });
    req.end(options.body);
  });
}

/** Resolves every address of the host; all must be public (unless exempted) and the first is pinned. */
async function resolveOnce(hostname: string, exempt: boolean): Promise<string> {
  const name = hostname.replace(/\.$/, ''); // "localhost." is the same host as "localhost"
  if (!exempt && (name === 'localhost' || name.endsWith('.localhost'))) throw refuse(`Host ${hostname} is not allowed`);
  let addresses: string[];
  if (isIP(hostname)) addresses = [hostname];
  else {
    try { addresses = (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address); } catch (error) {
      throw new HttpError(502, 'UPSTREAM_ERROR', `Cannot resolve ${hostname}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  if (!addresses.length) throw new HttpError(502, 'UPSTREAM_ERROR', `Cannot resolve ${hostname}`);
  const denied = addresses.find((a) => !isPublicAddress(a));
  if (denied && !exempt) throw refuse(`Host ${hostname} resolves to a non-public address (${denied})`);
  return addresses[0]!;
}
