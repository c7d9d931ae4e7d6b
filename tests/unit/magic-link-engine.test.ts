import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../iam/db/schema'
import { configSchema } from '../../iam/lib/config-schema'
import { attemptCode, checkLink, consumeLink, issueLink, previewLink, type LinkDeps } from '../../iam/features/mfa/links'
import { findLiveLink } from '../../iam/features/mfa/repository'
import { createMigratedDatabase } from '../helpers/test-database'

let db: Kysely<Database>
let clock = Date.parse('2026-11-21T20:00:00Z')
let deps: LinkDeps
const any = () => true

const paramsOf = (url: string) => {
  const q = new URL(url).searchParams
  return { token: q.get('token')!, random: q.get('random')!, reason: q.get('reason')!, visitor: q.get('visitor')! }
}

beforeAll(async () => {
  const config = configSchema.parse({
    database: { url: 'memory://' },
    secrets: { codes: 'c'.repeat(40), links: 'l'.repeat(40) },
    magic_links: { expiresInMs: 600_000, previews: 2, attempts: 3 },
    codes: { ttlMs: 300_000 },
  })
  db = await createMigratedDatabase(config)
  await db.insertInto('users').values({ email: 'a@example.com', name: 'A', password_hash: null, roles: JSON.stringify(['user']) }).execute()
  await db.insertInto('visitors').values({ canary_id: 'c1', visitor_id: 'v1' }).execute()
  await db.insertInto('session_families').values({ id: 'f1', user_id: 1, visitor_id: 1 }).execute()
  deps = { db, config, now: () => clock }
}, 60_000)
afterAll(() => db.destroy())

const issue = (withCode = true, purpose = 'MAGIC_LINK_MFA_CHECKS') =>
  db.transaction().execute((trx) => issueLink(trx, deps, { purpose, path: 'mfa', userId: 1, familyId: 'f1', visitor: 'v1', withCode }))

describe('magic-link engine', () => {
  it('issues a link on the configured domain with a 7-digit code', async () => {
    const link = await issue()
    expect(link.url.startsWith('http://127.0.0.1:3000/auth/mfa?token=')).toBe(true)
    expect(link.code).toMatch(/^\d{7}$/)
    const row = await db.selectFrom('mfa_codes').select('code_hmac').where('link_jti', '=', link.jti).executeTakeFirstOrThrow()
    expect(row.code_hmac).not.toContain(link.code!)
  })

  it('rejects a wrong random, visitor or purpose', async () => {
    const link = await issue()
    const params = paramsOf(link.url)
    expect(await checkLink(deps, { ...params, random: 'A'.repeat(43) }, any)).toEqual({ ok: false, code: 'invalid' })
    expect(await checkLink(deps, { ...params, visitor: 'v2' }, any)).toEqual({ ok: false, code: 'mismatch' })
    expect(await checkLink(deps, params, (p) => p === 'PASSWORD_RESET')).toEqual({ ok: false, code: 'mismatch' })
    expect((await checkLink(deps, params, any)).ok).toBe(true)
  })

  it('limits previews', async () => {
    const params = paramsOf((await issue()).url)
    expect((await previewLink(deps, params, any)).ok).toBe(true)
    expect((await previewLink(deps, params, any)).ok).toBe(true)
    expect(await previewLink(deps, params, any)).toEqual({ ok: false, code: 'previews' })
  })

  it('counts wrong codes and ends the link on the last attempt', async () => {
    const link = await issue()
    const check = await checkLink(deps, paramsOf(link.url), any)
    if (!check.ok) throw new Error('link should be valid')
    const wrong = link.code === '0000000' ? '0000001' : '0000000'
    expect(await attemptCode(deps, check.link, wrong)).toEqual({ ok: false, code: 'bad_code' })
    expect(await attemptCode(deps, check.link, wrong)).toEqual({ ok: false, code: 'bad_code' })
    expect(await attemptCode(deps, check.link, wrong)).toEqual({ ok: false, code: 'bad_code' })
    expect(await attemptCode(deps, check.link, link.code!)).toEqual({ ok: false, code: 'used' })
    expect(await checkLink(deps, paramsOf(link.url), any)).toEqual({ ok: false, code: 'used' })
  })

  it('consumes once: exactly one of many concurrent consumers wins', async () => {
    const link = await issue()
    const check = await checkLink(deps, paramsOf(link.url), any)
    if (!check.ok) throw new Error('link should be valid')
    expect(await attemptCode(deps, check.link, link.code!)).toEqual({ ok: true })
    const results = await Promise.all(Array.from({ length: 10 }, () => db.transaction().execute((trx) => consumeLink(trx, deps, check.link))))
    expect(results.filter(Boolean)).toHaveLength(1)
    expect(await checkLink(deps, paramsOf(link.url), any)).toEqual({ ok: false, code: 'used' })
  })

  it('rolls the consumption back with the transaction that failed', async () => {
    const link = await issue()
    const check = await checkLink(deps, paramsOf(link.url), any)
    if (!check.ok) throw new Error('link should be valid')
    await expect(db.transaction().execute(async (trx) => {
      expect(await consumeLink(trx, deps, check.link)).toBe(true)
      throw new Error('action failed')
    })).rejects.toThrow('action failed')
    expect((await checkLink(deps, paramsOf(link.url), any)).ok).toBe(true)
  })

  it('rejects a right code after the code lifetime, and an expired link', async () => {
    const link = await issue()
    const check = await checkLink(deps, paramsOf(link.url), any)
    if (!check.ok) throw new Error('link should be valid')
    clock += 301_000
    expect(await attemptCode(deps, check.link, link.code!)).toEqual({ ok: false, code: 'bad_code' })
    expect(await findLiveLink(db, { userId: 1, familyId: 'f1', purpose: 'X_NONE', now: new Date(clock) })).toBeNull()
    clock += 300_000
    expect(await checkLink(deps, paramsOf(link.url), any)).toEqual({ ok: false, code: 'expired' })
  })

  it('finds the live link of a flow and only that flow', async () => {
    const link = await issue(true, 'PAYMENT_CONFIRM')
    const live = await findLiveLink(db, { userId: 1, familyId: 'f1', purpose: 'PAYMENT_CONFIRM', now: new Date(clock) })
    expect(live?.jti).toBe(link.jti)
    expect(await findLiveLink(db, { userId: 1, familyId: 'f1', purpose: 'ACCOUNT_DELETE', now: new Date(clock) })).toBeNull()
  })
})
