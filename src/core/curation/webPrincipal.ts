// Browser mode with a team: besides the owner's session token, each curator's own token is accepted
// (checked against the stored hash on every request, so a revoked token stops at once), and the
// request then runs as that curator.
import type { DB } from '../db/connection';
import { runAsCurator } from './actor';
import { authenticateCurator } from './curators';

const PREFIX = 'curator:';

interface PrincipalLike {
  id: string;
}

/** Wraps the server's token check so that curator tokens are valid too (principal id "curator:<name>"). */
export function withCuratorTokens<P extends PrincipalLike>(
  base: (token: string) => P | null,
  db: () => DB,
): (token: string) => PrincipalLike | null {
  return (token) => {
    const owner = base(token);
    if (owner) return owner;
    let curator;
    try {
      curator = authenticateCurator(db(), token);
    } catch {
      return null; // no workspace open: only the owner's token can be checked
    }
    return curator ? { id: `${PREFIX}${curator.name}` } : null;
  };
}

/** Runs fn as the principal's curator (the owner acts as the local curator, the default). */
export function runAsPrincipal<T>(principal: PrincipalLike, fn: () => T): T {
  return principal.id.startsWith(PREFIX) ? runAsCurator(principal.id.slice(PREFIX.length), fn) : fn();
}
