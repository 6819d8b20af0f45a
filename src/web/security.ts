// Browser-mode guards: loopback Host/Origin only (DNS rebinding), a constant-time token check,
// a per-client token bucket (seed 001's ingress guard), and the response headers every reply carries.
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONTENT_SECURITY_POLICY } from '../shared/csp';

export { CONTENT_SECURITY_POLICY };

export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  // The token travels in the first URL: never leak it in a Referer.
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), clipboard-read=()',
};

export function applySecurityHeaders(res: ServerResponse): void {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
}

export function newToken(): string {
  return crypto.randomBytes(24).toString('base64url');
}

export function tokensEqual(expected: string, given: string | null | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** Host values a loopback server answers to; anything else is a rebinding attempt. */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

export function allowedOrigins(port: number): Set<string> {
  return new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
}

export function hostAllowed(req: IncomingMessage, port: number): boolean {
  const host = req.headers.host;
  return typeof host === 'string' && allowedHosts(port).has(host.toLowerCase());
}

/** No Origin (same-origin GET, curl) is fine; a present Origin must be ours. */
export function originAllowed(req: IncomingMessage, port: number): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  return allowedOrigins(port).has(String(origin).toLowerCase());
}

export interface RateLimitOptions {
  /** Bucket size: the burst a client may send at once. */
  capacity: number;
  /** Tokens added per second. */
  refillPerSecond: number;
  /** Buckets kept; beyond it the least recently used one is dropped. */
  maxKeys?: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { capacity: 300, refillPerSecond: 100 };
export const DEFAULT_MAX_BUCKETS = 10_000;

/**
 * One token bucket per client key: the principal of a valid token, or one shared key for every
 * unauthenticated request (so neither new source addresses nor guessed tokens earn fresh buckets).
 * A Map keeps insertion order: touching a key moves it to the end, so the first key is the least
 * recently used, and that is what goes when the map is full (never the whole map).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly maxKeys: number;
  constructor(
    private readonly opts: RateLimitOptions = DEFAULT_RATE_LIMIT,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.maxKeys = opts.maxKeys ?? DEFAULT_MAX_BUCKETS;
  }

  get size(): number {
    return this.buckets.size;
  }

  has(key: string): boolean {
    return this.buckets.has(key);
  }

  /** Takes one token; returns the seconds to wait when the bucket is empty, or 0 when allowed. */
  take(key: string): number {
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.opts.capacity, at: t };
    b.tokens = Math.min(this.opts.capacity, b.tokens + ((t - b.at) / 1000) * this.opts.refillPerSecond);
    b.at = t;
    this.buckets.delete(key);
    this.buckets.set(key, b);
    while (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return (1 - b.tokens) / this.opts.refillPerSecond;
  }
}
