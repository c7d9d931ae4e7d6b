/** The pure parts of webhook delivery (features/webhooks/schedule.ts, event-map.ts): when to retry, what a receiver sees. */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SECURITY_EVENT_TYPES } from '../../iam/contract/security-event-types'
import { isWebhookPattern, WEBHOOK_CATALOGUE_VERSION, WEBHOOK_EVENT_TYPES } from '../../iam/contract/webhooks'
import { patternsMatch, webhookData, webhookTypesOf } from '../../iam/features/webhooks/event-map'
import { nextAttempt, parseRetryAfter, RETRY_AFTER_MAX_MS } from '../../iam/features/webhooks/schedule'

const SCHEDULE = [5_000, 300_000]
const NOW = 1_800_000_000_000

describe('nextAttempt', () => {
  it('waits the scheduled time after each failure and ends the delivery once the schedule is spent', () => {
    expect(nextAttempt({ attempts: 1, nowMs: NOW, scheduleMs: SCHEDULE, jitter: 0, retryAfterMs: null, random: 0.5 })).toEqual({ kind: 'retry', atMs: NOW + 5_000 })
    expect(nextAttempt({ attempts: 2, nowMs: NOW, scheduleMs: SCHEDULE, jitter: 0, retryAfterMs: null, random: 0.5 })).toEqual({ kind: 'retry', atMs: NOW + 300_000 })
    expect(nextAttempt({ attempts: 3, nowMs: NOW, scheduleMs: SCHEDULE, jitter: 0, retryAfterMs: null, random: 0.5 })).toEqual({ kind: 'dead' })
  })

  it('stretches a wait by at most the jitter fraction, never shortens it', () => {
    expect(nextAttempt({ attempts: 1, nowMs: NOW, scheduleMs: SCHEDULE, jitter: 0.1, retryAfterMs: null, random: 0 })).toEqual({ kind: 'retry', atMs: NOW + 5_000 })
    expect(nextAttempt({ attempts: 1, nowMs: NOW, scheduleMs: SCHEDULE, jitter: 0.1, retryAfterMs: null, random: 0.999 })).toEqual({ kind: 'retry', atMs: NOW + 5_500 })
  })

  it('honours a longer Retry-After up to a day, and ignores a shorter one', () => {
    expect(nextAttempt({ attempts: 1, nowMs: NOW, scheduleMs: SCHEDULE, jitter: 0, retryAfterMs: 60_000, random: 0 })).toEqual({ kind: 'retry', atMs: NOW + 60_000 })
    expect(nextAttempt({ attempts: 1, nowMs: NOW, scheduleMs: SCHEDULE, jitter: 0, retryAfterMs: 1_000, random: 0 })).toEqual({ kind: 'retry', atMs: NOW + 5_000 })
    expect(nextAttempt({ attempts: 1, nowMs: NOW, scheduleMs: SCHEDULE, jitter: 0, retryAfterMs: 10 * RETRY_AFTER_MAX_MS, random: 0 })).toEqual({ kind: 'retry', atMs: NOW + RETRY_AFTER_MAX_MS })
  })
})

describe('parseRetryAfter', () => {
  it('reads delay-seconds and an HTTP-date, and nothing else (RFC 9110 section 10.2.3)', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000)
    expect(parseRetryAfter(new Date(NOW + 90_000).toUTCString(), NOW)).toBe(90_000)
    expect(parseRetryAfter(new Date(NOW - 90_000).toUTCString(), NOW)).toBe(0)
    for (const bad of [undefined, '', 'soon', '-5', '1.5']) expect(parseRetryAfter(bad, NOW)).toBeNull()
  })
})

describe('the catalogue', () => {
  it('maps security events only to types of the catalogue', () => {
    const unknown = SECURITY_EVENT_TYPES.flatMap((t) => webhookTypesOf(t)).filter((t) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t))
    expect(unknown).toEqual([])
  })

  it('reports every type of the catalogue from some change, but for the ones queued directly', () => {
    const mapped = new Set(SECURITY_EVENT_TYPES.flatMap((t) => webhookTypesOf(t)))
    // user.deleted is queued by the purge (features/account-deletion/purge.ts), webhook.test by the admin route
    expect(WEBHOOK_EVENT_TYPES.filter((t) => !mapped.has(t))).toEqual(['user.deleted', 'webhook.test'])
  })

  it('names a new version for every change of the types: how many types each version has is pinned here', () => {
    // receivers read catalogueVersion to know which types can come (docs/webhooks.md, "Catalogue"):
    // a type added under an older version would be one they were never told of. A new version adds
    // its line here; a version's count never changes.
    const TYPES_IN: Record<string, number> = {
      '2026-11-29': 26,
      // membership.deactivated, membership.reactivated (SCIM provisioning)
      '2026-11-30': 28,
    }
    expect(WEBHOOK_EVENT_TYPES).toHaveLength(TYPES_IN[WEBHOOK_CATALOGUE_VERSION]!)
  })

  it('is documented in docs/webhooks.md: its version and every type', () => {
    const doc = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8')
    expect(doc).toContain(`Version \`${WEBHOOK_CATALOGUE_VERSION}\``)
    expect(WEBHOOK_EVENT_TYPES.filter((t) => !doc.includes(`\`${t}\``))).toEqual([])
  })

  it('takes a type, a family wildcard or * and nothing else', () => {
    expect(['user.created', 'user.*', '*', 'organization.*'].every(isWebhookPattern)).toBe(true)
    expect(['user', 'user.', 'users.*', 'user.exploded', '**', ''].some(isWebhookPattern)).toBe(false)
    expect(patternsMatch(['user.*'], 'user.created')).toBe(true)
    expect(patternsMatch(['user.*'], 'session.created')).toBe(false)
    expect(patternsMatch(['*'], 'session.created')).toBe(true)
  })

  it('passes only named fields of an event to a receiver, never a secret a future event might record', () => {
    const data = webhookData({ sessionId: 's1', method: 'password', email: 'a@example.com', code: '1234567', token: 'tok', passwordHash: 'x', orgId: 'o1', nested: { a: 1 }, role: 'x'.repeat(201) })
    expect(data).toEqual({ sessionId: 's1', method: 'password', orgId: 'o1' })
  })
})
