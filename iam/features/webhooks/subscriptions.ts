/**
 * "Is any endpoint subscribed to this type?", answered from memory so that a change nobody
 * subscribes to (most sign-ins, on most deployments) costs no statement for webhooks at all.
 *
 * The delivery worker of each instance re-reads the enabled endpoints' patterns on every poll
 * (plugins/03.webhooks.ts, webhooks.pollMs) and the admin routes reload them on their own
 * instance at once; so an endpoint added on another instance is seen within one poll. Until the
 * first read, and whenever the last one is older than its `validForMs` (a worker that stopped, the
 * admin CLI which runs none), the answer is "maybe": the outbox statement runs and finds out itself
 * (INSERT ... SELECT writes nothing when no endpoint matches). Process-wide state, like the
 * metrics registry: one database per process.
 */
import { patternsMatch } from './event-map'

interface Known {
  patterns: ReadonlySet<string>
  /** Date.now() after which the snapshot is no longer trusted (a wall-clock freshness, not the IAM's clock) */
  trustedUntil: number
}

let known: Known | null = null
/** webhooks.enabled false: nothing is ever subscribed on this instance */
let off = false

/** webhooks.enabled false (plugins/03.webhooks.ts): no change queues an event from now on. */
export function turnSubscriptionsOff(): void {
  off = true
}

/** Stores what the enabled endpoints subscribe to, trusted for `validForMs`. */
export function rememberSubscriptions(patterns: Iterable<string>, validForMs: number): void {
  known = { patterns: new Set(patterns), trustedUntil: Date.now() + validForMs }
}

/** Drops the snapshot: every change runs the outbox statement until the next read. */
export function forgetSubscriptions(): void {
  known = null
}

/** False only when a fresh snapshot says no enabled endpoint receives `type`. */
export function maybeSubscribed(type: string): boolean {
  if (off) return false
  if (!known || Date.now() > known.trustedUntil) return true
  return patternsMatch(known.patterns, type)
}
