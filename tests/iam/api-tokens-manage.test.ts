import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, PROXY_CONFIG, signupUser, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer } from '../helpers/iam-server'
import { ISO, jsonOf, manage, newToken, refOf, verify, WIDE_LIMITERS } from './api-tokens-http'

let iam: IamServer
let user: Session
let other: Session
beforeAll(async () => {
  iam = await startIam({ config: { ...PROXY_CONFIG, rate_limiters: { apiTokensLimiters: WIDE_LIMITERS } }, env: CLOCK_ENV })
  user = await signupUser(iam)
  other = await signupUser(iam, { client: { ip: '203.0.113.77' } })
}, 300_000)
afterAll(() => iam?.stop())

/** The fixed reason text for people and logs, and the code a program decides on (the same reason may carry different codes) */
const failure = (reason: string, code: string) => ({ ok: false, date: expect.stringMatching(ISO), reason, code })
const tamper = (publicId: string) => `${publicId.slice(0, -1)}${publicId.endsWith('A') ? 'B' : 'A'}`

describe('POST /api/manage/new-token', () => {
  it('answers 201 with the raw token, the public identifier and the expiry', async () => {
    const res = await manage(iam, user, 'new-token', { privilege: 'custom', name: 'deploy', prefix: 'ci-01', expires: 3_600_000, ipv4: ['192.0.2.1'] })
    expect(res.status).toBe(201)
    expect(await res.json()).toEqual({
      ok: true,
      date: expect.stringMatching(ISO),
      data: {
        rawApiKey: expect.stringMatching(/^ci-01_[0-9A-Za-z]{43}_[0-9A-Za-z]{6}$/),
        rawPublicId: expect.stringMatching(/^[0-9A-Za-z]{22}_[0-9A-Za-z]{6}$/),
        expiresAt: expect.stringMatching(ISO),
      },
    })
  })

  it('answers 400 Bad Request for an invalid body or missing required values', async () => {
    for (const body of [
      {}, { name: 'x' }, { privilege: 'full' }, { privilege: 'admin', name: 'x' }, { privilege: 'full', name: '' },
      { privilege: 'full', name: 'x', prefix: 'a_b' }, { privilege: 'full', name: 'x', ipv4: ['2001:db8::1'] },
      { privilege: 'full', name: 'x', expires: -1 }, { privilege: 'full', name: 'x', extra: 1 }, { privilege: 'full', name: 7 },
    ]) {
      const res = await manage(iam, user, 'new-token', body)
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual(failure('Bad Request', 'bad_request'))
    }
  })

  it('answers 400 with the creation reason when the user is at the limit of valid tokens', async () => {
    const small = await startIam({ config: { ...PROXY_CONFIG, apiTokens: { limitTokensPerUser: 1 }, rate_limiters: { apiTokensLimiters: WIDE_LIMITERS } }, env: CLOCK_ENV })
    try {
      const s = await signupUser(small)
      expect((await manage(small, s, 'new-token', { privilege: 'demo', name: 'a' })).status).toBe(201)
      const res = await manage(small, s, 'new-token', { privilege: 'demo', name: 'b' })
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual(failure('You cannot have more than 1 valid tokens at a time', 'token_limit_reached'))
    } finally {
      await small.stop()
    }
  }, 120_000)

  it('answers 401 without a session', async () => {
    const res = await call(iam, 'POST', '/api/manage/new-token', { client: user, body: { privilege: 'full', name: 'x' } })
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ ok: false, error: 'Missing Bearer token' })
  })
})

describe('POST /api/manage/revoke', () => {
  it('answers 200 with msg, invalidedTokenId and userId, and the token stops verifying', async () => {
    const token = await newToken(iam, user)
    const res = await manage(iam, user, 'revoke', refOf(token))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      ok: true, date: expect.stringMatching(ISO),
      data: { msg: 'Token invalided successfully', invalidedTokenId: token.tokenId, userId: expect.any(Number) },
    })
    expect((await verify(iam, token.rawApiKey, 'full')).status).toBe(401)
  })

  it('answers 401 Invalid identity for a bad checksum, Bad Request for a revoked or foreign token', async () => {
    const token = await newToken(iam, user)
    const forged = await manage(iam, user, 'revoke', { ...refOf(token), publicIdentifier: tamper(token.rawPublicId) })
    expect(forged.status).toBe(401)
    expect(await forged.json()).toEqual(failure('Invalid identity', 'token_identity_mismatch'))
    const foreign = await manage(iam, other, 'revoke', refOf(token))
    expect(foreign.status).toBe(401)
    expect(await foreign.json()).toEqual(failure('Bad Request', 'token_not_found'))
    expect((await manage(iam, user, 'revoke', refOf(token))).status).toBe(200)
    const again = await manage(iam, user, 'revoke', refOf(token))
    expect(again.status).toBe(401)
    expect(await again.json()).toEqual(failure('Bad Request', 'token_not_found'))
  })

  it('answers 400 Bad Request for a schema mismatch', async () => {
    const token = await newToken(iam, user)
    for (const body of [{}, { ...refOf(token), tokenId: String(token.tokenId) }, { tokenId: token.tokenId, name: token.name }]) {
      const res = await manage(iam, user, 'revoke', body)
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual(failure('Bad Request', 'bad_request'))
    }
  })
})

describe('POST /api/manage/metadata', () => {
  it('answers 200 with the metadata result, without counting a use or checking the allow-list', async () => {
    const token = await newToken(iam, user, { privilege: 'protected', ipv4: ['192.0.2.200'] })
    const res = await manage(iam, user, 'metadata', refOf(token))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      ok: true, date: expect.stringMatching(ISO),
      data: {
        tokenMeta: {
          name: token.name, tokenId: token.tokenId, userId: expect.any(Number), createdAt: expect.stringMatching(ISO),
          expiresAt: null, lastUsed: null, usageCount: 0, providedPrivilege: 'protected',
        },
        counts: { total: expect.any(Number), totalValidTokens: expect.any(Number), totalInvalidTokens: expect.any(Number) },
      },
    })
    const again = await jsonOf(await manage(iam, user, 'metadata', refOf(token)))
    expect(again).toMatchObject({ data: { tokenMeta: { usageCount: 0, lastUsed: null } } })
  })

  it('answers 401 with the reason: Invalid identity, Bad Request, Token expired', async () => {
    const token = await newToken(iam, user, { expires: 1000 })
    const forged = await manage(iam, user, 'metadata', { ...refOf(token), publicIdentifier: tamper(token.rawPublicId) })
    expect(forged.status).toBe(401)
    expect(await forged.json()).toEqual(failure('Invalid identity', 'token_identity_mismatch'))
    const wrongName = await manage(iam, user, 'metadata', { ...refOf(token), name: 'not-it' })
    expect(wrongName.status).toBe(401)
    expect(await wrongName.json()).toEqual(failure('Bad Request', 'token_not_found'))
    await advanceClock(iam, 1001)
    const expired = await manage(iam, user, 'metadata', refOf(token))
    expect(expired.status).toBe(401)
    expect(await expired.json()).toEqual(failure('Token expired', 'token_expired'))
  })
})

describe('POST /api/manage/rotate', () => {
  it('answers 200 with the new token, which inherits name, privilege, prefix, lifetime and allow-list', async () => {
    const token = await newToken(iam, user, { privilege: 'restricted', prefix: 'svc', expires: 3_600_000, ipv4: ['192.0.2.9'] })
    const res = await manage(iam, user, 'rotate', refOf(token))
    expect(res.status).toBe(200)
    const body = await jsonOf(res)
    expect(body).toEqual({
      ok: true, date: expect.stringMatching(ISO),
      data: { msg: expect.any(String), newRawToken: expect.stringMatching(/^svc_/), newExpiry: token.expiresAt },
    })
    const newRaw = (body.data as { newRawToken: string }).newRawToken
    expect((await verify(iam, newRaw, 'restricted', '192.0.2.9')).status).toBe(200)
    expect((await verify(iam, newRaw, 'restricted', '192.0.2.10')).status).toBe(401)
    expect((await verify(iam, token.rawApiKey, 'restricted', '192.0.2.9')).status).toBe(401)
    const list = await jsonOf(await manage(iam, user, 'list-metadata'))
    const entries = (list.data as { tokenList: Array<{ name: string; public_identifier: string }> }).tokenList
    expect(entries.filter((e) => e.name === token.name)).toHaveLength(1)
    expect(entries.some((e) => e.public_identifier === token.rawPublicId)).toBe(false)
  })

  it('answers 400 with Invalid identity, Bad Request (no matching valid token) or schema mismatch', async () => {
    const token = await newToken(iam, user)
    for (const [body, reason, code] of [
      [{ ...refOf(token), publicIdentifier: tamper(token.rawPublicId) }, 'Invalid identity', 'token_identity_mismatch'],
      [{ ...refOf(token), tokenId: token.tokenId + 100_000 }, 'Bad Request', 'token_not_found'],
      [{ publicIdentifier: token.rawPublicId }, 'Bad Request', 'bad_request'],
    ] as const) {
      const res = await manage(iam, user, 'rotate', body)
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual(failure(reason, code))
    }
  })
})

describe('POST /api/manage/ip-restriction-update', () => {
  it('sets the allow-list, and an empty or omitted list stores null', async () => {
    const token = await newToken(iam, user)
    const listed = async () => {
      const list = await jsonOf(await manage(iam, user, 'list-metadata'))
      return (list.data as { tokenList: Array<{ id: number; restricted_to_ip_address: string[] | null }> }).tokenList.find((e) => e.id === token.tokenId)!
        .restricted_to_ip_address
    }
    const res = await manage(iam, user, 'ip-restriction-update', { ...refOf(token), ipv4: ['192.0.2.50', '::ffff:192.0.2.51'] })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true, date: expect.stringMatching(ISO), data: { msg: 'Restriction updated successfully' } })
    expect(await listed()).toEqual(['192.0.2.50', '192.0.2.51'])
    expect((await verify(iam, token.rawApiKey, 'full', '192.0.2.52')).status).toBe(401)
    expect((await manage(iam, user, 'ip-restriction-update', { ...refOf(token), ipv4: [] })).status).toBe(200)
    expect(await listed()).toBeNull()
    expect((await manage(iam, user, 'ip-restriction-update', { ...refOf(token), ipv4: ['192.0.2.50'] })).status).toBe(200)
    expect((await manage(iam, user, 'ip-restriction-update', refOf(token))).status).toBe(200)
    expect(await listed()).toBeNull()
    expect((await verify(iam, token.rawApiKey, 'full', '192.0.2.52')).status).toBe(200)
  })

  it('answers 400 with Invalid identity, Bad Request, or for non-IPv4 entries', async () => {
    const token = await newToken(iam, user)
    for (const [body, reason, code] of [
      [{ ...refOf(token), publicIdentifier: tamper(token.rawPublicId) }, 'Invalid identity', 'token_identity_mismatch'],
      [{ ...refOf(token), name: 'someone-else' }, 'Bad Request', 'token_not_found'],
      [{ ...refOf(token), ipv4: ['2001:db8::5'] }, 'Bad Request', 'bad_request'],
      [{ ...refOf(token), ipv4: 'x' }, 'Bad Request', 'bad_request'],
    ] as const) {
      const res = await manage(iam, user, 'ip-restriction-update', body)
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual(failure(reason, code))
    }
  })
})

describe('POST /api/manage/privilege-update', () => {
  it('sets the privilege: verification then needs the new one', async () => {
    const token = await newToken(iam, user, { privilege: 'demo' })
    const res = await manage(iam, user, 'privilege-update', { ...refOf(token), newPrivilege: 'full' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true, date: expect.stringMatching(ISO), data: { msg: 'Privileges updated successfully' } })
    expect((await verify(iam, token.rawApiKey, 'demo')).status).toBe(401)
    expect((await verify(iam, token.rawApiKey, 'full')).status).toBe(200)
  })

  it('answers 400 with the manager reason or for an unknown privilege', async () => {
    const token = await newToken(iam, user)
    for (const [body, reason, code] of [
      [{ ...refOf(token), publicIdentifier: tamper(token.rawPublicId), newPrivilege: 'demo' }, 'Invalid identity', 'token_identity_mismatch'],
      [{ ...refOf(token), newPrivilege: 'root' }, 'Bad Request', 'bad_request'],
      [{ ...refOf(token) }, 'Bad Request', 'bad_request'],
    ] as const) {
      const res = await manage(iam, other, 'privilege-update', body)
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual(failure(reason, code))
    }
    const foreign = await manage(iam, other, 'privilege-update', { ...refOf(token), newPrivilege: 'demo' })
    expect(foreign.status).toBe(400)
    expect(await foreign.json()).toEqual(failure('Bad Request', 'token_not_found'))
  })
})

describe('GET /api/manage/list-metadata', () => {
  it('answers the user-wide counts and only valid tokens; tokenList omitted without valid tokens', async () => {
    const fresh = await signupUser(iam, { client: { ip: '203.0.113.90' } })
    const empty = await manage(iam, fresh, 'list-metadata')
    expect(empty.status).toBe(200)
    expect(await empty.json()).toEqual({ ok: true, date: expect.stringMatching(ISO), data: { total: 0, totalInvalidTokens: 0, totalValidTokens: 0 } })
    const kept = await newToken(iam, fresh, { privilege: 'demo', name: 'kept' })
    const gone = await newToken(iam, fresh, { name: 'gone' })
    await manage(iam, fresh, 'revoke', refOf(gone))
    const res = await manage(iam, fresh, 'list-metadata')
    expect(await res.json()).toEqual({
      ok: true, date: expect.stringMatching(ISO),
      data: {
        total: 2, totalInvalidTokens: 1, totalValidTokens: 1,
        tokenList: [{
          id: kept.tokenId, name: 'kept', created_at: expect.stringMatching(ISO), expires_at: null, restricted_to_ip_address: null,
          public_identifier: kept.rawPublicId, last_used: null, usage_count: 0, privilege_type: 'demo',
        }],
      },
    })
  })

  it('answers POST with 400 Bad Request', async () => {
    const res = await manage(iam, user, 'list-metadata', undefined, { method: 'POST' })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual(failure('Bad Request', 'bad_request'))
  })
})

describe('unknown actions', () => {
  it('answer 404, and GET on a POST action is 404 too', async () => {
    for (const [method, action] of [['POST', 'delete-everything'], ['GET', 'revoke'], ['GET', 'nope']] as const) {
      const res = await manage(iam, user, action, {}, { method })
      expect(res.status).toBe(404)
      expect(await res.json()).toEqual({ error: "The page you are looking for doesn't exists", code: 'not_found' })
    }
  })
})
