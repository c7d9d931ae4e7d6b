/**
 * Devices: the canary cookie value, the visit record behind GET /check and the auth routes, and
 * bans. A device is banned while `banned_until` is in the future; bans come from XSS input or a
 * bot-detector score at or above `botDetector.banScore`.
 */
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { IamContext } from '../../context'
import type { Database, Visitor } from '../../db/schema'
import { cachedFingerPrint, scoreFingerPrint, type FingerPrint } from './fingerprint'
import { openGeoLookup } from './geo'
import { findVisitorByCanary, setVisitorBan, upsertVisitor } from './visitors-repo'

/** How long a ban lasts unless lifted. */
export const BAN_MS = 24 * 60 * 60 * 1000

/** 32 random bytes, hex: 256 bits, not guessable, fixed shape so junk cookies are refused early. */
export function newCanaryId(): string {
  return randomBytes(32).toString('hex')
}

const CANARY_SHAPE = /^[0-9a-f]{64}$/

/** True when the value has the shape of a canary we issue. */
export function isCanaryId(value: unknown): value is string {
  return typeof value === 'string' && CANARY_SHAPE.test(value)
}

/** True when `value` is a canary the IAM has recorded (a read only: nothing is written). */
export async function isKnownCanary(db: Kysely<Database>, value: unknown): Promise<boolean> {
  return isCanaryId(value) && (await findVisitorByCanary(db, value)) !== undefined
}

/** Public handle of a device (links carry it, never the canary). */
const newVisitorId = () => randomBytes(16).toString('hex')

/** True while the device's ban runs. */
export function isBanned(visitor: Pick<Visitor, 'banned_until'>, now: number): boolean {
  return !!visitor.banned_until && visitor.banned_until.getTime() > now
}

/** Fingerprint of a request, or null when fingerprinting fails (the request continues without it). */
export async function fingerPrintOf(ctx: IamContext, userAgent: string, ipAddress: string): Promise<FingerPrint | null> {
  try {
    const path = ctx.config.geo.mmdbPath
    const geo = path ? await openGeoLookup(path, (msg, fields) => ctx.log.warn(msg, fields)) : null
    return cachedFingerPrint(userAgent, ipAddress, geo, path ?? '')
  } catch (error) {
    ctx.log.warn('fingerprint failed', { error: (error as Error).message })
    return null
  }
}

export interface Visit {
  visitor: Visitor
  fingerprint: FingerPrint | null
  banned: boolean
}

/** Records the device behind `canaryId` (registering an unknown canary) and says whether it is banned. */
export async function recordVisit(
  ctx: IamContext,
  input: { canaryId: string; ipAddress: string; userAgent: string; fingerprint?: FingerPrint | null },
): Promise<Visit> {
  const now = ctx.now()
  const fingerprint = input.fingerprint === undefined ? await fingerPrintOf(ctx, input.userAgent, input.ipAddress) : input.fingerprint
  const score = fingerprint && ctx.config.botDetector.enabled ? scoreFingerPrint(fingerprint) : 0
  const banScore = ctx.config.botDetector.banScore
  const visitor = await upsertVisitor(ctx.db, {
    canaryId: input.canaryId,
    visitorId: newVisitorId(),
    ipAddress: input.ipAddress,
    userAgent: input.userAgent,
    fingerprint: fingerprint ? { ...fingerprint } : null,
    score,
    bannedUntil: score >= banScore ? new Date(now + BAN_MS) : null,
    now: new Date(now),
  })
  return { visitor, fingerprint, banned: isBanned(visitor, now) }
}

/** How often a known device's row is refreshed (last_seen, IP, user agent) when nothing else changed. */
export const VISIT_WRITE_EVERY_MS = 60_000

/**
 * The visit of a known device without a write, when the write recordVisit would do changes
 * nothing that matters: same IP, user agent and score, no new ban, and last_seen younger than
 * VISIT_WRITE_EVERY_MS (by the IAM clock). Null when recordVisit must run. Full authentication
 * uses it so a signed-in request costs no write in steady state.
 */
export function visitWithoutWrite(
  ctx: IamContext,
  row: Visitor,
  input: { ipAddress: string; userAgent: string; fingerprint: FingerPrint | null },
): Visit | null {
  const now = ctx.now()
  const banned = isBanned(row, now)
  const score = input.fingerprint && ctx.config.botDetector.enabled ? scoreFingerPrint(input.fingerprint) : 0
  // a live ban keeps its score (upsertVisitor); otherwise the stored score must be the one the upsert would write
  const sameScore = banned || (row.score === score && score < ctx.config.botDetector.banScore)
  const fresh = now - row.last_seen.getTime() < VISIT_WRITE_EVERY_MS
  if (!fresh || !sameScore || row.ip_address !== input.ipAddress || row.user_agent !== input.userAgent) return null
  return { visitor: row, fingerprint: input.fingerprint, banned }
}

/** What the sign-in routes know of a visit before the device row: the canary, network, agent and fingerprint. */
export type VisitFacts = { canaryId: string; ipAddress: string; userAgent: string; fingerprint: FingerPrint | null }

/**
 * recordVisit for the sign-in routes (signup, login, OAuth, the second-factor step, passkeys),
 * written only when due, as full authentication does: the device row is read, and the upsert runs
 * only when visitWithoutWrite says the write would change something that matters (a new IP, user
 * agent or score, a ban by score, last_seen older than VISIT_WRITE_EVERY_MS) or the canary is
 * unknown. A steady sign-in from a known device costs one read instead of a write, its commit and
 * a dead tuple (see docs/performance.md); the row, its ban and what the caller does with them are the same.
 */
export async function visitDevice(ctx: IamContext, input: VisitFacts): Promise<Visit> {
  return visitOfRow(ctx, await findVisitorByCanary(ctx.db, input.canaryId), input)
}

/** visitDevice's decision on a device row the caller has read (undefined: no row for the canary). */
export async function visitOfRow(ctx: IamContext, row: Visitor | undefined, input: VisitFacts): Promise<Visit> {
  return (row && visitWithoutWrite(ctx, row, input)) || recordVisit(ctx, input)
}

/**
 * Bans a device: score set to `banScore`, `banned_until` = now + BAN_MS, a security event kept.
 * Every XSS finding goes through here.
 */
export async function banVisitor(
  db: Kysely<Database>,
  visitorRowId: number,
  opts: { banScore: number; now: number; reason: string; ipAddress?: string | null; durationMs?: number; userId?: number | null },
): Promise<void> {
  await setVisitorBan(db, visitorRowId, {
    userId: opts.userId ?? null,
    score: opts.banScore,
    until: new Date(opts.now + (opts.durationMs ?? BAN_MS)),
    reason: opts.reason,
    ipAddress: opts.ipAddress ?? null,
    now: new Date(opts.now),
  })
}
