/**
 * The snapshot of the domains that require SSO (iam/features/enterprise/sso-required.ts): a fresh
 * one answers from memory (the database is never asked), whatever the case or Unicode spelling of
 * the address; without one, or once it is stale, the address's domain is read from the database,
 * so a stopped refresh never lets a password through.
 */
import type { Kysely } from 'kysely'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Database } from '../../iam/db/schema'
import { forgetSsoRequired, rememberSsoRequired, ssoRequiredFor } from '../../iam/features/enterprise/sso-required'

const CONNECTION = '4b0e3a52-7f1d-4c55-9a51-2f0c8e6d9a10'

/** A database every statement of which fails the test: the snapshot alone must answer. */
const untouchable = new Proxy({}, {
  get() {
    throw new Error('the database was asked')
  },
}) as Kysely<Database>

/** A database whose one read (connectionForDomain) answers `row`, counting the reads. */
function database(row: { connectionId: string; requireSso: boolean } | undefined) {
  const reads = { count: 0 }
  const chain: unknown = new Proxy(() => chain, {
    get: (_target, name) => (name === 'executeTakeFirst' ? () => (reads.count++, Promise.resolve(row)) : () => chain),
    apply: () => chain,
  })
  return { db: chain as Kysely<Database>, reads }
}

afterEach(() => {
  forgetSsoRequired()
  vi.useRealTimers()
})

describe('the domains that require SSO', () => {
  it('answers from a fresh snapshot without a statement, for any case of the address and a Unicode domain', async () => {
    rememberSsoRequired([{ domain: 'corp.test', connectionId: CONNECTION }, { domain: 'xn--bcher-corp-9db.test', connectionId: CONNECTION }], 10_000)
    expect(await ssoRequiredFor(untouchable, 'alice@corp.test')).toEqual({ connectionId: CONNECTION })
    expect(await ssoRequiredFor(untouchable, 'ALICE@Corp.Test')).toEqual({ connectionId: CONNECTION })
    expect(await ssoRequiredFor(untouchable, 'ada@BÜCHER-corp.test')).toEqual({ connectionId: CONNECTION })
    expect(await ssoRequiredFor(untouchable, 'alice@sub.corp.test')).toBeNull()
    expect(await ssoRequiredFor(untouchable, 'alice@example.com')).toBeNull()
    expect(await ssoRequiredFor(untouchable, 'not an address')).toBeNull()
  })

  it('reads the domain from the database before the first snapshot and once the snapshot is stale', async () => {
    const required = database({ connectionId: CONNECTION, requireSso: true })
    expect(await ssoRequiredFor(required.db, 'alice@corp.test')).toEqual({ connectionId: CONNECTION })
    expect(required.reads.count).toBe(1)
    vi.useFakeTimers()
    rememberSsoRequired([], 30_000)
    expect(await ssoRequiredFor(required.db, 'alice@corp.test')).toBeNull()
    vi.advanceTimersByTime(30_001)
    expect(await ssoRequiredFor(required.db, 'alice@corp.test')).toEqual({ connectionId: CONNECTION })
    expect(required.reads.count).toBe(2)
  })

  it('lets a domain routed to a connection that does not require SSO through when read from the database', async () => {
    const optional = database({ connectionId: CONNECTION, requireSso: false })
    expect(await ssoRequiredFor(optional.db, 'alice@corp.test')).toBeNull()
    expect(await ssoRequiredFor(database(undefined).db, 'alice@corp.test')).toBeNull()
  })

  it('trusts a snapshot with no timer behind it until it is replaced', async () => {
    vi.useFakeTimers()
    rememberSsoRequired([{ domain: 'corp.test', connectionId: CONNECTION }], Infinity)
    vi.advanceTimersByTime(365 * 24 * 3600_000)
    expect(await ssoRequiredFor(untouchable, 'alice@corp.test')).toEqual({ connectionId: CONNECTION })
  })
})
