/**
 * The limiter's state model; the storage layer's atomic operations (lib/storage/atomic-*.ts) decide on it.
 *
 * Per limiter `name` and caller `key` (h = its hash, see below) the store holds:
 *   rl:<name>:{h}:w<i>  part i's fixed-window counter, TTL = the part's duration (window opens on first use)
 *   rl:<name>:{h}:b<i>  part i's block, TTL = the part's blockDuration (only when blockDuration > 0)
 *   rl:<name>:{h}:rej   consecutive rejections, TTL = the longest window or block of any part
 *   rl:<name>:{h}:perm  the permanent block, TTL = permanentBlockMs (365 days by default)
 *
 * A consume is all-or-nothing: if any part rejects, no part spends a point, so a rejected request
 * does not eat the budget of the other parts of a union.
 */
import { hashKeyPart } from '../../lib/storage/keys'
import type { LimiterKeys, PartMs } from '../../lib/storage/atomic'

/** One limit: `points` per `duration` seconds; going over blocks the key for `blockDuration` seconds (0 = until the window ends). */
export type LimiterSpec = { points: number; duration: number; blockDuration: number }

export type { LimitDecision, LimiterKeys, LimiterPolicy, LimitStep, PartMs } from '../../lib/storage/atomic'

/**
 * "Permanent" = 365 days. Every key in shared storage has a TTL (state never grows without
 * bound), and the keys here are IPs and IP_user pairs: addresses are reassigned, so a ban older
 * than a year mostly hits a bystander. Operators lift one earlier with reset(key, { unblock: true }).
 */
export const PERMANENT_BLOCK_MS = 365 * 24 * 60 * 60 * 1000

const NAME = /^[A-Za-z0-9_.-]{1,64}$/

/** Limiter names are code-chosen namespaces: 1-64 of [A-Za-z0-9_.-] (no `:`, which separates key parts). */
export function checkLimiterName(name: string): void {
  if (!NAME.test(name)) throw new Error(`invalid limiter name: ${name}`)
}

export function toPartsMs(parts: LimiterSpec | LimiterSpec[]): PartMs[] {
  const list = Array.isArray(parts) ? parts : [parts]
  if (list.length === 0) throw new Error('a rate limiter needs at least one part')
  return list.map((part) => {
    if (!Number.isInteger(part.points) || part.points < 1) throw new Error(`limiter points must be a positive integer: ${part.points}`)
    if (!(part.duration > 0) || !Number.isFinite(part.duration)) throw new Error(`limiter duration must be > 0 s: ${part.duration}`)
    if (!(part.blockDuration >= 0) || !Number.isFinite(part.blockDuration)) {
      throw new Error(`limiter blockDuration must be >= 0 s: ${part.blockDuration}`)
    }
    return {
      points: part.points,
      durationMs: Math.max(1, Math.round(part.duration * 1000)),
      blockMs: Math.round(part.blockDuration * 1000),
    }
  })
}

/**
 * A rejection can only follow the previous one without a success in between while some part's
 * window or block from that time is still alive (windows grow only on successes, blocks are made
 * only by rejections), so the longest window or block, plus a second of slack, never loses a count.
 */
export function rejectionsTtlMs(parts: PartMs[]): number {
  return Math.max(...parts.map((p) => Math.max(p.durationMs, p.blockMs))) + 1000
}

/**
 * The caller's key is hashed: a successful verification resets the consumption limiter by the raw
 * API token (features/api-tokens/public-verify.ts), which must not sit in storage in clear; hashing also bounds the length of keys built
 * from request headers and removes any ambiguity from `:` in IPv6 addresses.
 */
export function limiterKeys(fullKey: (key: string) => string, name: string, key: string, partCount: number): LimiterKeys {
  checkLimiterName(name)
  const digest = hashKeyPart(key)
  // {digest} is a Redis Cluster hash tag: every key one script touches lands in the same slot.
  const at = (suffix: string) => fullKey(`rl:${name}:{${digest}}:${suffix}`)
  const indexes = Array.from({ length: partCount }, (_, i) => i)
  return {
    windows: indexes.map((i) => at(`w${i}`)),
    blocks: indexes.map((i) => at(`b${i}`)),
    rejections: at('rej'),
    permanent: at('perm'),
  }
}
