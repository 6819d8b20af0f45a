// Curators of a workspace: names, roles and browser-mode tokens. A token is shown once, when it is
// made; only its SHA-256 is stored, so a leaked database does not leak a way in.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Curator } from '../../shared/contract/curation';
import { AppError } from '../../shared/errors';
import { writeTx, type DB } from '../db/connection';
import {
  findActiveCuratorByTokenHash,
  findCuratorByName,
  hasLocalCurator,
  insertCurator,
  listCuratorRows,
  reissueCuratorToken,
  revokeCuratorToken,
  upsertLocalCurator,
  type CuratorRole,
  type CuratorRow,
} from '../db/repositories/curators';
import { actorOf, nowOf, type ServiceContext } from '../context';

export const CURATOR_ROLES = ['curator', 'lead'] as const;
export type { CuratorRole };

export const curatorNameSchema = z
  .string()
  .trim()
  .min(1, 'a curator name is required')
  .max(64, 'a curator name has at most 64 characters')
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} ._@-]*$/u, 'a curator name uses letters, digits, spaces, dot, dash, underscore or @');

const toCurator = (r: CuratorRow): Curator => ({
  name: r.name,
  role: r.role,
  isLocal: r.is_local === 1,
  hasToken: r.token_hash != null,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');
const newCuratorToken = (): string => `rc_${randomBytes(24).toString('base64url')}`;

function parseName(name: unknown): string {
  const r = curatorNameSchema.safeParse(name);
  if (!r.success) throw new AppError('Invalid', `curator name: ${r.error.issues[0]?.message ?? 'invalid'}`);
  return r.data;
}

function findRow(db: DB, name: string): CuratorRow | undefined {
  return findCuratorByName(db, name);
}

/** Adds a curator (or gives a revoked one a new token) and returns the token, shown only this once. */
export function addCurator(ctx: ServiceContext, input: { name: string; role?: CuratorRole }): { curator: Curator; token: string } {
  const name = parseName(input.name);
  const role = input.role ?? 'curator';
  if (!CURATOR_ROLES.includes(role)) throw new AppError('Invalid', `curator role must be one of ${CURATOR_ROLES.join(', ')}`);
  const token = newCuratorToken();
  writeTx(ctx.db, () => {
    const existing = findRow(ctx.db, name);
    if (existing && existing.revoked_at == null && existing.token_hash != null) {
      throw new AppError('Conflict', `curator ${existing.name} already exists: revoke it first to issue a new token`);
    }
    if (existing) {
      reissueCuratorToken(ctx.db, existing.name, hashToken(token), role);
    } else {
      insertCurator(ctx.db, { name, tokenHash: hashToken(token), role, createdAt: nowOf(ctx) });
    }
  });
  return { curator: toCurator(findRow(ctx.db, name)!), token };
}

export function listCurators(ctx: ServiceContext): Curator[] {
  return listCuratorRows(ctx.db).map(toCurator);
}

/** Revokes a curator's token: their next request is refused. Their past actions stay attributed. */
export function revokeCurator(ctx: ServiceContext, name: string): Curator {
  const row = findRow(ctx.db, parseName(name));
  if (!row) throw new AppError('NotFound', `no curator named ${name}`);
  if (row.revoked_at != null) throw new AppError('Conflict', `curator ${row.name} is already revoked`);
  // Their reservations go back to the queue at once.
  revokeCuratorToken(ctx.db, row.name, nowOf(ctx));
  return toCurator(findRow(ctx.db, row.name)!);
}

/** The web server's token check: the active curator whose token this is, or null. */
export function authenticateCurator(db: DB, token: string | null | undefined): Curator | null {
  if (typeof token !== 'string' || !token.startsWith('rc_') || token.length > 200) return null;
  const hash = hashToken(token);
  const row = findActiveCuratorByTokenHash(db, hash);
  // The lookup is by hash already; compare again in constant time so timing says nothing about near misses.
  if (!row?.token_hash || !timingSafeEqual(Buffer.from(row.token_hash), Buffer.from(hash))) return null;
  return toCurator(row);
}

/** Names the local curator (the desktop user); the first one named is a lead. Renaming keeps one local row. */
export function setLocalCurator(ctx: ServiceContext, name: string): Curator {
  const clean = parseName(name);
  writeTx(ctx.db, () => {
    const clash = findRow(ctx.db, clean);
    if (clash && clash.is_local !== 1) throw new AppError('Conflict', `${clash.name} is a browser-mode curator; choose another name`);
    upsertLocalCurator(ctx.db, clean, nowOf(ctx));
  });
  return toCurator(findRow(ctx.db, clean)!);
}

/** Who the acting curator is, and whether the desktop app still has to ask for a name. */
export function whoAmI(ctx: ServiceContext): { name: string; role: CuratorRole; isLocal: boolean; needsName: boolean } {
  const name = actorOf(ctx);
  const row = findRow(ctx.db, name);
  const hasLocal = hasLocalCurator(ctx.db);
  // Whoever holds the session token (not a curator token) is the workspace owner: a lead.
  return { name, role: row?.role ?? 'lead', isLocal: row ? row.is_local === 1 : true, needsName: !hasLocal && !row };
}

export function roleOf(ctx: ServiceContext): CuratorRole {
  return whoAmI(ctx).role;
}
