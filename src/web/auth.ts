// Who may call browser mode, and how the proof travels. The URL printed at start holds a token; the
// page exchanges it once for an HttpOnly, SameSite=Strict cookie and is redirected to a clean URL,
// so the token never stays in the address bar or history and scripts on the page never see it.
// API clients outside a browser send it in the X-Reflection-Token header. Downloads go through
// short-lived one-use tickets, so no link ever carries a credential. Every check goes through one
// authenticate(token) hook, so more than one token (one per curator) can be valid.
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { tokensEqual } from './security';

export interface Principal {
  /** Stable id of whoever holds the token: the rate-limit bucket and, later, the curator. */
  id: string;
}

/** Answers the principal a token belongs to, or null. Must be constant-time in the token. */
export type Authenticate = (token: string) => Principal | null;

/** The single-token default: the token printed at start, for the owner of the machine. */
export function singleTokenAuth(token: string): Authenticate {
  return (given) => (tokensEqual(token, given) ? { id: 'owner' } : null);
}

export const TICKET_TTL_MS = 60_000;
const MAX_SESSIONS = 1000;
const MAX_TICKETS = 1000;

const random = () => crypto.randomBytes(24).toString('base64url');

/** Cookie sessions (cookie value -> the token it was exchanged for) and download tickets. */
export class WebAuth {
  private readonly sessions = new Map<string, string>();
  private readonly tickets = new Map<string, { principal: Principal; exportId: string; file: string; expires: number }>();

  constructor(
    readonly authenticate: Authenticate,
    private readonly now: () => number = Date.now,
  ) {}

  /** Cookies are per host, not per port: the name carries the port so two servers never mix. */
  cookieName(port: number): string {
    return `reflection_session_${port}`;
  }

  /** Exchanges a URL token for a cookie value; null when the token is not valid. */
  exchange(token: string): string | null {
    if (!this.authenticate(token)) return null;
    const id = random();
    this.sessions.set(id, token);
    // Oldest first: a flood of exchanges cannot grow the map without bound.
    while (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    return id;
  }

  setCookieHeader(port: number, value: string): string {
    return `${this.cookieName(port)}=${value}; HttpOnly; SameSite=Strict; Path=/`;
  }

  /**
   * The principal of an API request: the header token, else the cookie. A token in the query is
   * never accepted here. The cookie's token is checked again on every request, so a revoked token
   * ends its sessions too.
   */
  principalOf(req: IncomingMessage, port: number, headerName: string): Principal | null {
    const header = req.headers[headerName];
    if (typeof header === 'string' && header) return this.authenticate(header);
    const cookie = parseCookies(req.headers.cookie)[this.cookieName(port)];
    const token = cookie ? this.sessions.get(cookie) : undefined;
    return token ? this.authenticate(token) : null;
  }

  /** A one-use ticket for one export file, valid TICKET_TTL_MS. */
  issueTicket(principal: Principal, exportId: string, file: string): { ticket: string; expiresAt: number } {
    const now = this.now();
    for (const [k, t] of this.tickets) if (t.expires <= now) this.tickets.delete(k);
    while (this.tickets.size >= MAX_TICKETS) this.tickets.delete(this.tickets.keys().next().value as string);
    const ticket = random();
    const expiresAt = now + TICKET_TTL_MS;
    this.tickets.set(ticket, { principal, exportId, file, expires: expiresAt });
    return { ticket, expiresAt };
  }

  /** Takes a ticket (it cannot be used again); null when unknown, used or expired. */
  redeemTicket(ticket: string): { principal: Principal; exportId: string; file: string } | null {
    const t = this.tickets.get(ticket);
    if (!t) return null;
    this.tickets.delete(ticket);
    return t.expires > this.now() ? t : null;
  }
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}
