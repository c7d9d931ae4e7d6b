import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiTokenLibrary, type ApiTokenLibrary } from '../../iam/api-tokens'
import { hashToken } from '../../iam/features/api-tokens/token-format'
import { banAccount, unbanAccount } from '../../iam/features/users/admin-users'
import { captureLog, failingAfter, insertUser, openTestDb, type TestDb } from './api-tokens-db'
import { createSessionHooks } from '../../iam/features/sessions/session-hooks'

let t: TestDb
let clock = Date.parse('2026-11-21T12:00:00.000Z')
const now = () => clock
const capture = captureLog()
let lib: ApiTokenLibrary
let userId: number
let otherUserId: number
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const libWith = (overrides: Partial<Parameters<typeof createApiTokenLibrary>[0]> = {}) =>
  createApiTokenLibrary({ db: t.db, config: { apiTokens: { limitTokensPerUser: 1000 } }, log: capture.log, now, ...overrides })

async function created(owner = userId, ...rest: [string?, number?, string[]?]) {
  const [prefix, expires, ips] = rest
  const result = await lib.createApiKey(owner, 'full', 'ci key', prefix, expires, ips)
  if (!result.ok) throw new Error(result.reason)
  return result.data
}

const rowOf = (raw: string) =>
  t.db.selectFrom('api_tokens').selectAll().where('hashed_token', '=', hashToken(raw)).executeTakeFirstOrThrow()

beforeAll(async () => {
  t = await openTestDb()
  lib = libWith()
  userId = await insertUser(t.db)
  otherUserId = await insertUser(t.db)
}, 60_000)
afterAll(() => t?.close())

describe('createApiKey', () => {
  it('returns the raw token once, a public identifier and the expiry; stores only the SHA-256', async () => {
    const result = await lib.createApiKey(userId, 'demo', 'first', 'live', 60_000, ['10.0.0.1', '::ffff:10.0.0.2'])
    expect(result).toMatchObject({ ok: true, date: expect.stringMatching(ISO) })
    if (!result.ok) return
    const { rawApiKey, rawPublicId, expiresAt } = result.data
    expect(rawApiKey).toMatch(/^live_[0-9A-Za-z]{43}_[0-9A-Za-z]{6}$/)
    expect(rawPublicId).toMatch(/^[0-9A-Za-z]{22}_[0-9A-Za-z]{6}$/)
    expect(expiresAt).toBe(new Date(clock + 60_000).toISOString())
    const row = await rowOf(rawApiKey)
    expect(row).toMatchObject({
      user_id: userId, name: 'first', prefix: 'live', public_identifier: rawPublicId, privilege_type: 'demo',
      valid: 1, usage_count: 0, last_used: null, restricted_to_ip_address: ['10.0.0.1', '10.0.0.2'],
    })
    const all = await t.db.selectFrom('api_tokens').selectAll().execute()
    expect(JSON.stringify(all)).not.toContain(rawApiKey.split('_')[1])
  })

  it('defaults to prefix api, no expiry and no IP restriction', async () => {
    const data = await created()
    expect(data.rawApiKey.startsWith('api_')).toBe(true)
    expect(data.expiresAt).toBeNull()
    expect((await rowOf(data.rawApiKey)).restricted_to_ip_address).toBeNull()
  })

  it('refuses a prefix containing "_", bad IPs, bad expiry and unknown users with a reason and its code', async () => {
    for (const [args, reason, code] of [
      [[userId, 'full', 'n', 'a_b'], 'Invalid prefix: 1-16 of [A-Za-z0-9-], no "_"', 'validation_failed'],
      [[userId, 'full', 'n', 'api', undefined, ['300.1.1.1']], 'Invalid IP address list: IPv4 addresses only', 'validation_failed'],
      [[userId, 'full', 'n', 'api', undefined, ['2001:db8::1']], 'Invalid IP address list: IPv4 addresses only', 'validation_failed'],
      [[userId, 'full', 'n', 'api', -5], 'Invalid expiry: a positive number of milliseconds', 'validation_failed'],
      [[userId, 'root', 'n'], 'Invalid privilege', 'validation_failed'],
      [[999_999, 'full', 'n'], 'User not found', 'account_not_found'],
    ] as const) {
      const result = await (lib.createApiKey as (...a: unknown[]) => ReturnType<ApiTokenLibrary['createApiKey']>)(...args)
      expect(result).toEqual({ ok: false, date: expect.stringMatching(ISO), reason, code })
    }
  })

  it('refuses a token beyond apiTokens.limitTokensPerUser valid tokens', async () => {
    const owner = await insertUser(t.db)
    const small = libWith({ config: { apiTokens: { limitTokensPerUser: 2 } } })
    expect((await small.createApiKey(owner, 'demo', 'a')).ok).toBe(true)
    expect((await small.createApiKey(owner, 'demo', 'b')).ok).toBe(true)
    expect(await small.createApiKey(owner, 'demo', 'c')).toMatchObject({ ok: false, reason: 'You cannot have more than 2 valid tokens at a time', code: 'token_limit_reached' })
  })

  it('keeps the limit under 40 concurrent creations: exactly 20 valid tokens', async () => {
    const owner = await insertUser(t.db)
    const limited = libWith({ config: { apiTokens: { limitTokensPerUser: 20 } } })
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => limited.createApiKey(owner, 'demo', `k${i}`)))
    expect(results.filter((r) => r.ok)).toHaveLength(20)
    const { n } = await t.db.selectFrom('api_tokens').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', owner).where('valid', '=', 1).executeTakeFirstOrThrow()
    expect(Number(n)).toBe(20)
  })
})

describe('verifyApiKey', () => {
  it('verifies and counts: usage_count +1 and last_used = now', async () => {
    const { rawApiKey } = await created()
    const result = await lib.verifyApiKey(rawApiKey, false, 'full', false)
    expect(result).toEqual({
      ok: true,
      date: new Date(clock).toISOString(),
      data: {
        name: 'ci key', tokenId: expect.any(Number), userId, createdAt: new Date(clock).toISOString(),
        expiresAt: null, lastUsed: new Date(clock).toISOString(), usageCount: 1, providedPrivilege: 'full',
      },
    })
    const row = await rowOf(rawApiKey)
    expect(row.usage_count).toBe(1)
  })

  it('does not count with skipCountUpdates', async () => {
    const { rawApiKey } = await created()
    const result = await lib.verifyApiKey(rawApiKey, true, 'full', false)
    expect(result).toMatchObject({ ok: true, data: { usageCount: 0, lastUsed: null } })
    expect((await rowOf(rawApiKey)).usage_count).toBe(0)
  })

  it('answers Invalid key for another privilege, a malformed or tampered token, or an unknown one', async () => {
    const { rawApiKey } = await created()
    const [p, payload, checksum] = rawApiKey.split('_') as [string, string, string]
    const tampered = `${p}_${payload.slice(0, -1)}${payload.endsWith('A') ? 'B' : 'A'}_${checksum}`
    for (const [key, privilege] of [
      [rawApiKey, 'demo'], [tampered, 'full'], [`${p}_${payload}`, 'full'], ['', 'full'], ['api__x', 'full'],
      [hashToken(rawApiKey), 'full'], [`x${rawApiKey}`.replace(/^xapi/, 'apix'), 'full'],
    ] as const) {
      expect(await lib.verifyApiKey(key, false, privilege, false)).toEqual({ ok: false, date: expect.stringMatching(ISO), reason: 'Invalid key', code: 'api_key_invalid' })
    }
    expect((await rowOf(rawApiKey)).usage_count).toBe(0)
  })

  it('accepts the stored hash only as an internal hash', async () => {
    const { rawApiKey } = await created()
    expect((await lib.verifyApiKey(hashToken(rawApiKey), true, 'full', true, true)).ok).toBe(true)
  })

  it('enforces the IP allow-list: listed and IPv4-mapped hosts pass, others and a missing IP get Invalid Host', async () => {
    const { rawApiKey } = await created(userId, 'api', undefined, ['192.0.2.10'])
    expect((await lib.verifyApiKey(rawApiKey, false, 'full', false, false, '192.0.2.10')).ok).toBe(true)
    expect((await lib.verifyApiKey(rawApiKey, false, 'full', false, false, '::ffff:192.0.2.10')).ok).toBe(true)
    expect(await lib.verifyApiKey(rawApiKey, false, 'full', false, false, '192.0.2.11')).toMatchObject({ ok: false, reason: 'Invalid Host' })
    expect(await lib.verifyApiKey(rawApiKey, false, 'full', false, false)).toMatchObject({ ok: false, reason: 'Invalid Host' })
    expect((await lib.verifyApiKey(rawApiKey, false, 'full', true, false, '198.51.100.1')).ok).toBe(true)
    expect((await rowOf(rawApiKey)).usage_count).toBe(3)
  })

  it('answers Token expired once past expires_at, marks the token invalid, then Invalid key', async () => {
    const { rawApiKey } = await created(userId, 'api', 1000)
    expect((await lib.verifyApiKey(rawApiKey, false, 'full', false)).ok).toBe(true)
    clock += 1000
    expect(await lib.verifyApiKey(rawApiKey, false, 'full', false)).toMatchObject({ ok: false, reason: 'Token expired' })
    expect((await rowOf(rawApiKey)).valid).toBe(0)
    expect(await lib.verifyApiKey(rawApiKey, false, 'full', false)).toMatchObject({ ok: false, reason: 'Invalid key' })
  })

  it('answers Server error validating token. when the database fails', async () => {
    const { rawApiKey } = await created()
    const broken = libWith({ db: failingAfter(t.db, 0) })
    expect(await broken.verifyApiKey(rawApiKey, false, 'full', false)).toMatchObject({ ok: false, reason: 'Server error validating token.' })
  })

  it('logs failures at info with branch api_tokens and type verify, never the token', async () => {
    const { rawApiKey } = await created()
    const before = capture.lines.length
    await lib.verifyApiKey(rawApiKey, false, 'demo', false)
    const lines = capture.lines.slice(before)
    expect(lines).toContainEqual(expect.objectContaining({ level: 'info', branch: 'api_tokens', type: 'verify', reason: 'Invalid key' }))
    const payload = rawApiKey.split('_')[1]!
    expect(capture.raw.some((line) => line.includes(payload) || line.includes(hashToken(rawApiKey)))).toBe(false)
  })

  it('counts exactly under 1,000 concurrent verifications of one token', async () => {
    const { rawApiKey } = await created()
    const results = await Promise.all(Array.from({ length: 1000 }, () => lib.verifyApiKey(rawApiKey, false, 'full', false)))
    expect(results.every((r) => r.ok)).toBe(true)
    expect((await rowOf(rawApiKey)).usage_count).toBe(1000)
  }, 60_000)
})

describe('revokeApiKey', () => {
  it('invalidates a valid token and answers its id and owner; the row is kept', async () => {
    const { rawApiKey } = await created()
    const row = await rowOf(rawApiKey)
    expect(await lib.revokeApiKey(rawApiKey, 'full')).toEqual({
      ok: true, date: expect.stringMatching(ISO), data: { msg: 'Token invalided successfully', invalidedTokenId: row.id, userId },
    })
    expect((await rowOf(rawApiKey)).valid).toBe(0)
    expect(await lib.verifyApiKey(rawApiKey, false, 'full', false)).toMatchObject({ reason: 'Invalid key' })
  })

  it('is idempotent: already revoked, unknown, malformed or other-privilege tokens answer ok with the plain message', async () => {
    const { rawApiKey } = await created()
    await lib.revokeApiKey(rawApiKey, 'full')
    const other = await created()
    for (const [key, privilege] of [[rawApiKey, 'full'], ['nope', 'full'], [hashToken('x'), 'demo'], [other.rawApiKey, 'demo']] as const) {
      expect(await lib.revokeApiKey(key, privilege)).toEqual({ ok: true, date: expect.stringMatching(ISO), data: 'Token invalided successfully' })
    }
    expect((await rowOf(other.rawApiKey)).valid).toBe(1)
  })

  it('accepts the stored hash', async () => {
    const { rawApiKey } = await created()
    expect(await lib.revokeApiKey(hashToken(rawApiKey), 'full')).toMatchObject({ ok: true, data: { msg: 'Token invalided successfully' } })
  })

  it('answers Error invalidating token when the database fails', async () => {
    const { rawApiKey } = await created()
    expect(await libWith({ db: failingAfter(t.db, 0) }).revokeApiKey(rawApiKey, 'full')).toMatchObject({ ok: false, reason: 'Error invalidating token' })
  })
})

describe('rotateApiKey', () => {
  it('revokes the old token and creates a working replacement in one step', async () => {
    const { rawApiKey } = await created(userId, 'rot', 60_000, ['192.0.2.1'])
    const result = await lib.rotateApiKey(rawApiKey, 'full', 'ci key', false, ['192.0.2.1'], 60_000, 'rot')
    expect(result).toEqual({
      ok: true, date: expect.stringMatching(ISO),
      data: { msg: expect.any(String), newRawToken: expect.stringMatching(/^rot_/), newExpiry: new Date(clock + 60_000).toISOString() },
    })
    if (!result.ok) return
    const old = await rowOf(rawApiKey)
    const fresh = await rowOf(result.data.newRawToken)
    expect(old).toMatchObject({ valid: 0, rotated_to: fresh.id })
    expect(fresh).toMatchObject({ valid: 1, name: 'ci key', privilege_type: 'full', restricted_to_ip_address: ['192.0.2.1'] })
  })

  it('answers Cannot rotate revoked token for a revoked, unknown or other-privilege token', async () => {
    const { rawApiKey } = await created()
    expect(await lib.rotateApiKey(rawApiKey, 'demo', 'x')).toMatchObject({ ok: false, reason: 'Cannot rotate revoked token' })
    await lib.revokeApiKey(rawApiKey, 'full')
    expect(await lib.rotateApiKey(rawApiKey, 'full', 'x')).toMatchObject({ ok: false, reason: 'Cannot rotate revoked token' })
    expect(await lib.rotateApiKey('api_x_y', 'full', 'x')).toMatchObject({ ok: false, reason: 'Cannot rotate revoked token' })
  })

  it('deletes the old row with deleteOnRotation', async () => {
    const { rawApiKey } = await created()
    expect((await lib.rotateApiKey(rawApiKey, 'full', 'x', true)).ok).toBe(true)
    expect(await t.db.selectFrom('api_tokens').select('id').where('hashed_token', '=', hashToken(rawApiKey)).executeTakeFirst()).toBeUndefined()
  })

  it('forwards a creation failure and rolls back: the old token stays valid', async () => {
    const { rawApiKey } = await created()
    expect(await lib.rotateApiKey(rawApiKey, 'full', 'x', false, undefined, undefined, 'bad_prefix')).toMatchObject({
      ok: false, reason: 'Invalid prefix: 1-16 of [A-Za-z0-9-], no "_"',
    })
    expect((await rowOf(rawApiKey)).valid).toBe(1)
  })

  it('answers Token cannot be rotated this time when the old row cannot be deleted, and changes nothing', async () => {
    const { rawApiKey } = await created()
    await sql`create rule keep_tokens as on delete to api_tokens do instead nothing`.execute(t.db)
    try {
      expect(await lib.rotateApiKey(rawApiKey, 'full', 'x', true)).toMatchObject({ ok: false, reason: 'Token cannot be rotated this time' })
    } finally {
      await sql`drop rule keep_tokens on api_tokens`.execute(t.db)
    }
    expect((await rowOf(rawApiKey)).valid).toBe(1)
  })

  it('answers Server error rotating a token. when the database fails mid-way, and changes nothing', async () => {
    const { rawApiKey } = await created()
    expect(await libWith({ db: failingAfter(t.db, 1) }).rotateApiKey(rawApiKey, 'full', 'x')).toMatchObject({
      ok: false, reason: 'Server error rotating a token.',
    })
    expect((await rowOf(rawApiKey)).valid).toBe(1)
  })

  it('makes exactly one replacement under 20 concurrent rotations of one token', async () => {
    const owner = await insertUser(t.db)
    const first = await lib.createApiKey(owner, 'restricted', 'svc')
    if (!first.ok) throw new Error(first.reason)
    const results = await Promise.all(Array.from({ length: 20 }, () => lib.rotateApiKey(first.data.rawApiKey, 'restricted', 'svc')))
    expect(results.filter((r) => r.ok)).toHaveLength(1)
    expect(results.filter((r) => !r.ok).map((r) => !r.ok && r.reason)).toEqual(Array(19).fill('Cannot rotate revoked token'))
    const rows = await t.db.selectFrom('api_tokens').select(['valid']).where('user_id', '=', owner).execute()
    expect(rows).toHaveLength(2)
    expect(rows.filter((r) => r.valid === 1)).toHaveLength(1)
  })
})

describe('getUserApiKeysMetaData', () => {
  it('answers token metadata and user-wide counts without counting a use or checking the IP list', async () => {
    const owner = await insertUser(t.db)
    const a = await created(owner, 'api', undefined, ['192.0.2.99'])
    const b = await created(owner)
    await lib.revokeApiKey(b.rawApiKey, 'full')
    const result = await lib.getUserApiKeysMetaData(a.rawApiKey, 'full')
    expect(result).toEqual({
      ok: true, date: expect.stringMatching(ISO),
      data: {
        tokenMeta: {
          name: 'ci key', tokenId: expect.any(Number), userId: owner, createdAt: expect.stringMatching(ISO),
          expiresAt: null, lastUsed: null, usageCount: 0, providedPrivilege: 'full',
        },
        counts: { total: 2, totalValidTokens: 1, totalInvalidTokens: 1 },
      },
    })
    expect((await rowOf(a.rawApiKey)).usage_count).toBe(0)
  })

  it('forwards Invalid key and Token expired', async () => {
    const { rawApiKey } = await created(userId, 'api', 500)
    expect(await lib.getUserApiKeysMetaData(rawApiKey, 'demo')).toMatchObject({ ok: false, reason: 'Invalid key' })
    clock += 500
    expect(await lib.getUserApiKeysMetaData(rawApiKey, 'full')).toMatchObject({ ok: false, reason: 'Token expired' })
    expect((await rowOf(rawApiKey)).valid).toBe(0)
  })

  it('answers Error getting metadata when counting fails', async () => {
    const { rawApiKey } = await created()
    expect(await libWith({ db: failingAfter(t.db, 1) }).getUserApiKeysMetaData(rawApiKey, 'full')).toMatchObject({
      ok: false, reason: 'Error getting metadata',
    })
  })
})

describe('updateRestriction and updatePrivileges', () => {
  it('sets and clears the allow-list; an empty list stores null', async () => {
    const { rawApiKey } = await created()
    expect(await lib.updateRestriction(userId, rawApiKey, ['192.0.2.5'])).toEqual({
      ok: true, date: expect.stringMatching(ISO), data: { msg: 'Restriction updated successfully' },
    })
    expect((await rowOf(rawApiKey)).restricted_to_ip_address).toEqual(['192.0.2.5'])
    expect((await lib.updateRestriction(userId, hashToken(rawApiKey), [])).ok).toBe(true)
    expect((await rowOf(rawApiKey)).restricted_to_ip_address).toBeNull()
    expect((await lib.updateRestriction(userId, rawApiKey, ['192.0.2.6'])).ok).toBe(true)
    expect((await lib.updateRestriction(userId, rawApiKey, null)).ok).toBe(true)
    expect((await rowOf(rawApiKey)).restricted_to_ip_address).toBeNull()
  })

  it('sets the privilege; verification then needs the new one', async () => {
    const { rawApiKey } = await created()
    expect(await lib.updatePrivileges(userId, rawApiKey, 'custom')).toEqual({
      ok: true, date: expect.stringMatching(ISO), data: { msg: 'Privileges updated successfully' },
    })
    expect(await lib.verifyApiKey(rawApiKey, false, 'full', false)).toMatchObject({ reason: 'Invalid key' })
    expect((await lib.verifyApiKey(rawApiKey, false, 'custom', false)).ok).toBe(true)
  })

  it('answer Token not found or unauthorized for another user, an unknown or a revoked token', async () => {
    const { rawApiKey } = await created()
    const revoked = await created()
    await lib.revokeApiKey(revoked.rawApiKey, 'full')
    for (const [owner, key] of [[otherUserId, rawApiKey], [userId, hashToken('nope')], [userId, revoked.rawApiKey]] as const) {
      expect(await lib.updateRestriction(owner, key, ['192.0.2.1'])).toMatchObject({ ok: false, reason: 'Token not found or unauthorized' })
      expect(await lib.updatePrivileges(owner, key, 'demo')).toMatchObject({ ok: false, reason: 'Token not found or unauthorized' })
    }
  })

  it('answer Internal server error when the database fails', async () => {
    const { rawApiKey } = await created()
    const broken = libWith({ db: failingAfter(t.db, 0) })
    expect(await broken.updateRestriction(userId, rawApiKey, null)).toMatchObject({ ok: false, reason: 'Internal server error' })
    expect(await broken.updatePrivileges(userId, rawApiKey, 'demo')).toMatchObject({ ok: false, reason: 'Internal server error' })
  })
})

describe('getAllValidTokensList', () => {
  it('counts all rows of the user and lists only valid ones', async () => {
    const owner = await insertUser(t.db)
    expect(await lib.getAllValidTokensList(owner)).toEqual({
      ok: true, date: expect.stringMatching(ISO), data: { total: 0, totalInvalidTokens: 0, totalValidTokens: 0 },
    })
    const a = await lib.createApiKey(owner, 'demo', 'a', 'api', undefined, ['192.0.2.1'])
    const b = await created(owner)
    await lib.revokeApiKey(b.rawApiKey, 'full')
    const result = await lib.getAllValidTokensList(owner)
    expect(result).toEqual({
      ok: true, date: expect.stringMatching(ISO),
      data: {
        total: 2, totalInvalidTokens: 1, totalValidTokens: 1,
        tokenList: [{
          id: expect.any(Number), name: 'a', created_at: expect.stringMatching(ISO), expires_at: null,
          restricted_to_ip_address: ['192.0.2.1'], public_identifier: a.ok ? a.data.rawPublicId : '', last_used: null,
          usage_count: 0, privilege_type: 'demo',
        }],
      },
    })
  })

  it('answers Server error when the database fails', async () => {
    expect(await libWith({ db: failingAfter(t.db, 0) }).getAllValidTokensList(userId)).toMatchObject({ ok: false, reason: 'Server error' })
  })
})

describe('privateActionManager', () => {
  async function owned() {
    const result = await lib.createApiKey(userId, 'protected', 'managed', 'mgr', 120_000, ['192.0.2.7'])
    if (!result.ok) throw new Error(result.reason)
    const row = await rowOf(result.data.rawApiKey)
    return { ...result.data, id: row.id }
  }

  it('answers Invalid identity for a public identifier with a bad checksum', async () => {
    const token = await owned()
    const forged = `${token.rawPublicId.slice(0, -1)}${token.rawPublicId.endsWith('A') ? 'B' : 'A'}`
    expect(await lib.privateActionManager(userId, token.id, forged, 'managed', { action: 'revoke' })).toMatchObject({ ok: false, reason: 'Invalid identity' })
  })

  it('answers Bad Request for another user, another name, another id or a revoked token', async () => {
    const token = await owned()
    const other = await owned()
    for (const [owner, id, pub, name] of [
      [otherUserId, token.id, token.rawPublicId, 'managed'], [userId, token.id, token.rawPublicId, 'other'],
      [userId, other.id, token.rawPublicId, 'managed'],
    ] as const) {
      expect(await lib.privateActionManager(owner, id, pub, name, { action: 'metadata' })).toMatchObject({ ok: false, reason: 'Bad Request' })
    }
    await lib.revokeApiKey(token.rawApiKey, 'protected')
    expect(await lib.privateActionManager(userId, token.id, token.rawPublicId, 'managed', { action: 'revoke' })).toMatchObject({ ok: false, reason: 'Bad Request' })
  })

  it('dispatches revoke, metadata, ip-restriction-update and privilege-update on the owned token', async () => {
    const token = await owned()
    const act = (action: Parameters<ApiTokenLibrary['privateActionManager']>[4]) =>
      lib.privateActionManager(userId, token.id, token.rawPublicId, 'managed', action)
    expect(await act({ action: 'metadata' })).toMatchObject({ ok: true, data: { tokenMeta: { tokenId: token.id, providedPrivilege: 'protected' } } })
    expect(await act({ action: 'ip-restriction-update', newIpAddress: null })).toMatchObject({ ok: true, data: { msg: 'Restriction updated successfully' } })
    expect(await act({ action: 'privilege-update', newPrivileges: 'demo' })).toMatchObject({ ok: true, data: { msg: 'Privileges updated successfully' } })
    expect((await rowOf(token.rawApiKey)).privilege_type).toBe('demo')
    expect(await act({ action: 'revoke' })).toMatchObject({ ok: true, data: { msg: 'Token invalided successfully', invalidedTokenId: token.id, userId } })
  })

  it('rotates keeping name, privilege, prefix, remaining lifetime and IP restrictions', async () => {
    const token = await owned()
    clock += 20_000
    const result = await lib.privateActionManager(userId, token.id, token.rawPublicId, 'managed', { action: 'rotate' })
    expect(result).toMatchObject({ ok: true, data: { newRawToken: expect.stringMatching(/^mgr_/), newExpiry: token.expiresAt } })
    if (!result.ok || typeof result.data !== 'object' || !('newRawToken' in result.data)) return
    expect(await rowOf(result.data.newRawToken)).toMatchObject({
      name: 'managed', privilege_type: 'protected', prefix: 'mgr', restricted_to_ip_address: ['192.0.2.7'], valid: 1,
    })
    expect((await rowOf(token.rawApiKey)).valid).toBe(0)
  })

  it('answers Server Error when the owner lookup fails', async () => {
    const token = await owned()
    expect(await libWith({ db: failingAfter(t.db, 0) }).privateActionManager(userId, token.id, token.rawPublicId, 'managed', { action: 'metadata' }))
      .toMatchObject({ ok: false, reason: 'Server Error' })
  })
})

describe("a banned user's tokens (users:ban suspends them until the ban ends)", () => {
  const HOUR_MS = 3_600_000
  const emailOf = async (id: number) => (await t.db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirstOrThrow()).email
  const ban = async (owner: number, forMs: number) => {
    const result = await banAccount({ db: t.db, now, sessionHooks: createSessionHooks() }, { email: await emailOf(owner), until: new Date(clock + forMs), by: 'test' })
    if (!result.ok) throw new Error(result.code)
    return result
  }

  it('treats them as not valid while the ban lasts: Invalid key, not listed, counted invalid; a rotation made meanwhile is suspended too', async () => {
    const owner = await insertUser(t.db)
    const a = await created(owner)
    const b = await created(owner)
    expect((await ban(owner, HOUR_MS)).tokensSuspended).toBe(2)

    expect(await lib.verifyApiKey(a.rawApiKey, false, 'full', false)).toEqual({ ok: false, date: expect.stringMatching(ISO), reason: 'Invalid key', code: 'api_key_invalid' })
    expect(await lib.getUserApiKeysMetaData(a.rawApiKey, 'full')).toMatchObject({ ok: false, reason: 'Invalid key' })
    expect(await lib.getAllValidTokensList(owner)).toEqual({
      ok: true, date: expect.stringMatching(ISO), data: { total: 2, totalInvalidTokens: 2, totalValidTokens: 0 },
    })
    // nothing was counted or invalidated: the token only waits for the ban to end
    expect(await rowOf(a.rawApiKey)).toMatchObject({ valid: 1, usage_count: 0 })

    const rotated = await lib.rotateApiKey(b.rawApiKey, 'full', 'rotated during the ban')
    if (!rotated.ok) throw new Error(rotated.reason)
    expect(await lib.verifyApiKey(rotated.data.newRawToken, false, 'full', false)).toMatchObject({ ok: false, reason: 'Invalid key' })
  })

  it('restores them on unban, and by itself once the ban has run out', async () => {
    const owner = await insertUser(t.db)
    const a = await created(owner)
    await ban(owner, HOUR_MS)
    expect((await unbanAccount({ db: t.db, now, sessionHooks: createSessionHooks() }, { email: await emailOf(owner), by: 'test' })).ok).toBe(true)
    expect(await lib.verifyApiKey(a.rawApiKey, false, 'full', false)).toMatchObject({ ok: true, data: { usageCount: 1 } })
    expect(await lib.getAllValidTokensList(owner)).toMatchObject({ ok: true, data: { totalValidTokens: 1, tokenList: [{ name: 'ci key' }] } })

    await ban(owner, HOUR_MS)
    expect(await lib.verifyApiKey(a.rawApiKey, false, 'full', false)).toMatchObject({ ok: false, reason: 'Invalid key' })
    clock += HOUR_MS
    expect(await lib.verifyApiKey(a.rawApiKey, false, 'full', false)).toMatchObject({ ok: true, data: { usageCount: 2 } })
    expect(await lib.getAllValidTokensList(owner)).toMatchObject({ ok: true, data: { totalValidTokens: 1, totalInvalidTokens: 0 } })
  })
})
