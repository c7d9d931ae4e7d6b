/**
 * The per-account login delay (rate_limiters.loginAccountDelay, progressive-delay.ts) with the
 * owner's way past an attack: device cookies (OWASP Authentication Cheat Sheet, "device cookies").
 *
 * - The account's subject is the normalised, case-folded email as typed, whether or not an account
 *   has it: an unknown address is throttled exactly like a known one and the decision needs no
 *   database read (no enumeration by status, body or timing).
 * - A device (canary_id's visitor row) that signed in to that address before has a delay of its
 *   own. Without it an attacker sending a guess the moment each delay ends would win nearly every
 *   race against the owner; with it, guesses from anywhere else never slow the owner's usual
 *   devices, and a stolen device cookie still meets the delay on its own subject. The mark is
 *   keyed on a hash of address + device and set only after a right password, so it tells nothing
 *   to anyone who does not already know the password.
 * - A successful login forgives both subjects and (re)marks the device.
 *
 * The per-IP budget counts failures: an admission spends its point before the password is judged
 * (parallel guesses stay bounded), and a right password gives back the points its own requests
 * spent (refundLoginIpPoints, or forgiveLoginAttempts with `ipPointsSpent`). The IP's other
 * failures stay counted: forgiving them on any success would let a guesser reset the cap by
 * signing in to an account of their own between guesses at others.
 */
import { hash } from 'node:crypto'
import type { IamContext } from '../../context'
import type { LimitRefund } from '../../lib/storage/atomic'
import type { LimitDecision } from '../rate-limits/limiter'
import { loginDelaySubject, useDelay, useLimiter } from '../rate-limits/registry'

/** As long as the canary cookie lives (90 days): the mark is worth nothing once the cookie is gone. */
const DEVICE_MARK_TTL_MS = 90 * 24 * 60 * 60 * 1000

/**
 * A mark set less than this ago is not written again by a sign-in: a steady sign-in costs one store
 * write fewer, and the mark still outlives the last sign-in by DEVICE_MARK_TTL_MS minus a day.
 */
const DEVICE_MARK_REWRITE_AFTER_MS = 24 * 60 * 60 * 1000

// one-shot hash(): the same digest as a Hash object, at a third of its cost (lib/storage/keys.ts)
const deviceMarkKey = (email: string, visitorRowId: number) => `login-device:${hash('sha256', loginDelaySubject(email, visitorRowId), 'base64url')}`

/**
 * Recent failed attempts before this one, read in the admission's own store call: of the client
 * IP (its login budget's window, which a right password gives its points back to) and of the
 * address (the account delay's subject: the address, or the address on this device once marked).
 * Attempts still being judged count too. The same for a known and an unknown address.
 */
export type RecentFailures = { ip: number; address: number }

/**
 * Why an attempt was not admitted (a limiter's refusal, with its retry and permanence; or the
 * delay's wait), or, admitted, when the device's mark was set (null: not marked), for
 * forgiveLoginAttempts, and the recent failures (the bot check after failures, login-service.ts).
 */
export type LoginAdmission =
  | { ok: false; code: 'limited'; decision: Extract<LimitDecision, { ok: false }> }
  | { ok: false; code: 'throttled'; retryMs: number }
  | { ok: true; deviceMarkedAt: number | null; failures: RecentFailures }

/**
 * Admits one login attempt for `email` from the device at `ipAddress`, in ONE store call: the
 * login's per-IP budget (rate_limiters.login x LOGIN_IP_FACTOR), then its IP + address limiter,
 * each consumed only when the one before allowed, then the account's delay, whose subject the
 * device's mark picks (the address on this device, or the address), read in the same step. A
 * refusal leaves every later step untouched, as when they were separate calls.
 */
export async function admitLoginAttempt(ctx: IamContext, input: { email: string; visitorRowId: number; ipAddress: string }): Promise<LoginAdmission> {
  const limiters = [useLimiter(ctx, 'loginIp'), useLimiter(ctx, 'loginAccount')] as const
  const steps = [limiters[0].step({ ip: input.ipAddress }), limiters[1].step({ ip: input.ipAddress, email: input.email })]
  const delay = useDelay(ctx, 'loginAccountDelay').stepByMark(ctx.store.fullKey(deviceMarkKey(input.email, input.visitorRowId)), {
    marked: { email: input.email, device: input.visitorRowId },
    unmarked: { email: input.email },
  })
  const admission = await ctx.store.atomic.consumeThenAttemptByMark(steps, delay, ctx.store.now())
  const refusedBy = admission.limits.findIndex((decision) => !decision.ok)
  if (refusedBy >= 0) {
    const decision = limiters[refusedBy]!.settle(admission.limits[refusedBy]!)
    if (!decision.ok) return { ok: false, code: 'limited', decision }
  }
  const { decision, mark } = admission.delay!
  if (!decision.ok) return { ok: false, code: 'throttled', retryMs: decision.retryMs }
  // this attempt's own point and count are not a failure yet
  const used = admission.used
  if (!used) throw new Error('the store answered an admitted login attempt without its counts')
  const failures = { ip: Math.max(0, (used.limits[0] ?? 0) - 1), address: Math.max(0, used.delay - 1) }
  return { ok: true, deviceMarkedAt: markedAt(mark), failures }
}

/** When a mark (its stored JSON) was set; marks written before they carried their time (the value 1) read as old. */
function markedAt(mark: string | null): number | null {
  if (mark === null) return null
  const at = Number(mark)
  return Number.isFinite(at) ? at : 0
}

export interface ForgiveInput {
  email: string
  visitorRowId: number
  /** from admitLoginAttempt: a recent mark is not rewritten */
  deviceMarkedAt?: number | null
  /** also resets the login limiter of this IP + address (rate_limiters.login) and refunds the IP's points */
  ipAddress?: string
  /** points of the IP's login budget this sign-in's own requests spent (default 1), given back */
  ipPointsSpent?: number
}

/** A right password whose sign-in goes on (the second-factor step): the point its request spent on the IP's budget, given back. */
export async function refundLoginIpPoints(ctx: IamContext, ipAddress: string, points = 1): Promise<void> {
  await ctx.store.atomic.refundThenDelete([useLimiter(ctx, 'loginIp').refundStep({ ip: ipAddress }, points)], [], ctx.store.now())
}

/**
 * After a right password: forgets the attempts of the address and of this device (and, given the
 * IP, the IP + address login limiter, and refunds the IP budget's points) in ONE store call, and (re)marks the device unless its mark is
 * recent. The keys carry several hash tags: on a Redis Cluster the store settles them per slot
 * (lib/storage/atomic-redis.ts).
 */
export async function forgiveLoginAttempts(ctx: IamContext, input: ForgiveInput): Promise<void> {
  const loginDelay = useDelay(ctx, 'loginAccountDelay')
  const keys = [...loginDelay.forgiveKeys({ email: input.email }), ...loginDelay.forgiveKeys({ email: input.email, device: input.visitorRowId })]
  const refunds: LimitRefund[] = []
  if (input.ipAddress !== undefined) {
    keys.push(...useLimiter(ctx, 'loginAccount').resetKeys({ ip: input.ipAddress, email: input.email }))
    refunds.push(useLimiter(ctx, 'loginIp').refundStep({ ip: input.ipAddress }, input.ipPointsSpent ?? 1))
  }
  const now = ctx.now()
  const markIsRecent = input.deviceMarkedAt != null && now - input.deviceMarkedAt < DEVICE_MARK_REWRITE_AFTER_MS
  await Promise.all([
    ctx.store.atomic.refundThenDelete(refunds, keys, ctx.store.now()),
    markIsRecent ? undefined : ctx.store.set(deviceMarkKey(input.email, input.visitorRowId), now, DEVICE_MARK_TTL_MS),
  ])
}
