/**
 * Refresh-token rotation with a grace window for duplicate refreshes (DESIGN 4, RFC 9700 §4.14.2).
 *
 * Browsers fire the same refresh several times. A rotation prepares the new pair first (new refresh
 * token, access token signed from the claims the guard just read), files it in the shared store,
 * sealed under the old token, for `reuseGraceMs`, and only then spends the old token in ONE
 * statement (a conditional UPDATE ... WHERE status = 'active' with the insert of the replacement:
 * exactly one winner among parallel rotations, no lock and no BEGIN/COMMIT). The pair is filed
 * under the old token's hash AND the new one's, so only the pair whose token the database actually
 * holds as the successor can ever be found: a rotation that lost, or whose statement failed, leaves
 * an entry nobody looks up (it expires), and a store that fails stops the rotation before anything
 * is spent. The same old token from the same device within the window gets the winner's pair; from
 * another device, later, or without a filed pair, it is reuse and the family dies.
 */
import type { IamContext } from '../../context'
import { hashRefreshToken, newRefreshToken, openForToken, sealForToken } from './refresh-token'
import { completePair, refreshExpiry, revokeFamily, type TokenPair } from './session-service'
import { findReplacementHash, rotateInOneStatement, type SessionState } from './sessions-repo'

/** Why a rotation fails: a replayed token, or a dead one. */
export type RotateFailureCode = 'reused' | 'invalid'
export type RotateResult = { ok: true; pair: TokenPair } | { ok: false; code: RotateFailureCode }

type GraceEntry = { canary: string; sealed: string }

const graceKey = (hash: string, nextHash: string) => `session:grace:${hash}:${nextHash}`

/** What the refresh guard read and passed: the token and family, the account's roles, the family's device. */
export interface RotationFacts {
  raw: string
  /** the request's device cookie; the guard checked it names the family's device */
  canaryId: string
  session: SessionState
  roles: string[]
  /** public id of the family's device (the access token's `visitor` claim) */
  visitor: string
}

/** The winner's pair of a rotation of `hash`, when this device may have it (the grace window). */
async function gracePair(ctx: IamContext, raw: string, hash: string, canaryId: string): Promise<TokenPair | null> {
  const nextHash = await findReplacementHash(ctx.db, hash)
  if (!nextHash) return null
  const entry = await ctx.store.get<GraceEntry>(graceKey(hash, nextHash))
  if (!entry || entry.canary !== canaryId) return null
  return openForToken<TokenPair>(raw, entry.sealed)
}

/** Prepares, files and commits one rotation; 'not-active' when another rotation spent the token first. */
async function rotateOnce(ctx: IamContext, facts: RotationFacts, hash: string): Promise<TokenPair | 'not-active' | 'invalid'> {
  const now = ctx.now()
  const cfg = ctx.config.jwt.refresh_tokens
  const { family } = facts.session
  const refreshToken = newRefreshToken()
  const newHash = hashRefreshToken(refreshToken)
  const refreshExpiresAt = refreshExpiry(cfg, family.remember, family.created_at.getTime(), now)
  const pair = await completePair(
    ctx,
    { familyId: family.id, refreshToken, refreshExpiresAt },
    { userId: family.user_id, roles: facts.roles, visitor: facts.visitor },
  )
  // filed before the token is spent: a duplicate that loses the UPDATE below finds it at once
  if (cfg.reuseGraceMs > 0) {
    await ctx.store.set(graceKey(hash, newHash), { canary: facts.canaryId, sealed: sealForToken(facts.raw, pair) } satisfies GraceEntry, cfg.reuseGraceMs)
  }
  const rotated = await rotateInOneStatement(ctx.db, {
    hash,
    newHash,
    now: new Date(now),
    expiresAt: new Date(refreshExpiresAt),
    maxSessionLifeMs: cfg.MAX_SESSION_LIFE,
  })
  if (!rotated) return 'not-active'
  return rotated.replacedBy === null ? 'invalid' : pair
}

/**
 * Rotates the token of `facts` after the anomaly checks passed (check 1 refused revoked, expired and
 * out-of-grace reused tokens; a rotated token reaching here is a same-device duplicate within the
 * window).
 */
export async function rotateRefreshToken(ctx: IamContext, facts: RotationFacts): Promise<RotateResult> {
  const hash = hashRefreshToken(facts.raw)
  if (facts.session.token.status === 'active') {
    const result = await rotateOnce(ctx, facts, hash)
    if (result === 'invalid') return { ok: false, code: 'invalid' }
    if (result !== 'not-active') return { ok: true, pair: result }
  }
  // spent already: by a parallel duplicate just now, or earlier within the grace window
  const pair = await gracePair(ctx, facts.raw, hash, facts.canaryId)
  if (pair) return { ok: true, pair }
  const familyId = facts.session.family.id
  await revokeFamily(ctx.db, familyId, 'refresh_token_reuse', ctx.now())
  ctx.log.warn('refresh token reuse: family revoked', { familyId })
  return { ok: false, code: 'reused' }
}
