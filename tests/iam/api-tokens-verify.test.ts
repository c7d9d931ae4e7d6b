import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROXY_CONFIG, signupUser, type Session } from '../helpers/accounts'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { startIam, type IamServer } from '../helpers/iam-server'
import { flushedLogs } from '../helpers/logs'
import { ISO, jsonOf, manage, newToken, refOf, verify, WIDE_LIMITERS } from './api-tokens-http'
import { skippedWithout, titled } from '../helpers/skip-notes'

let iam: IamServer
let user: Session
beforeAll(async () => {
  iam = await startIam({ config: { ...PROXY_CONFIG, rate_limiters: { apiTokensLimiters: WIDE_LIMITERS } }, env: CLOCK_ENV })
  user = await signupUser(iam)
}, 300_000)
afterAll(() => iam?.stop())

const CODES: Record<string, string> = { 'Bad Request': 'bad_request', 'No api key provided': 'api_key_missing', 'Invalid key': 'api_key_invalid', 'Invalid Host': 'host_not_allowed' }
/** The fixed reason text and the code that goes with it on this route */
const invalid = (reason: string) => ({ ok: false, date: expect.stringMatching(ISO), reason, code: CODES[reason] })

describe('GET /api/public/verify', () => {
  it('answers 200 with the verification result and counts the use', async () => {
    const token = await newToken(iam, user, { privilege: 'restricted', name: 'svc' })
    const res = await verify(iam, token.rawApiKey, 'restricted')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      ok: true,
      date: expect.stringMatching(ISO),
      data: {
        name: 'svc', tokenId: token.tokenId, userId: expect.any(Number), createdAt: expect.stringMatching(ISO),
        expiresAt: null, lastUsed: expect.stringMatching(ISO), usageCount: 1, providedPrivilege: 'restricted',
      },
    })
    const meta = await jsonOf(await manage(iam, user, 'metadata', refOf(token)))
    expect(meta).toMatchObject({ ok: true, data: { tokenMeta: { usageCount: 1 } } })
  })

  it('answers 400 Bad Request for a missing or unknown privilege', async () => {
    const token = await newToken(iam, user)
    for (const privilege of [undefined, 'admin', '', 'FULL']) {
      const res = await verify(iam, token.rawApiKey, privilege)
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual(invalid('Bad Request'))
    }
  })

  it('reads the privilege as a query parser does: encoded, among other keys; repeated or with a suffix it is no privilege', async () => {
    const token = await newToken(iam, user)
    const headers = { 'x-forwarded-for': '198.51.100.21', 'x-api-key': token.rawApiKey }
    const status = async (query: string) => (await fetch(`${iam.url}/api/public/verify?${query}`, { headers })).status
    for (const query of ['privilege=f%75ll', 'privilege=full&x=1', 'x=1&privilege=full', 'privilege=full&']) expect(await status(query), query).toBe(200)
    for (const query of ['privilege=full&privilege=full', 'privilege=full+', 'privilege=fullx', 'privilege=', 'privilegefull']) expect(await status(query), query).toBe(400)
  })

  it('answers 401 No api key provided when x-api-key is missing, empty or repeated', async () => {
    for (const key of [undefined, '', '   ']) {
      const res = await verify(iam, key, 'full')
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual(invalid('No api key provided'))
    }
    const token = await newToken(iam, user)
    const headers = new Headers({ 'x-forwarded-for': '198.51.100.20' })
    headers.append('x-api-key', token.rawApiKey)
    headers.append('x-api-key', token.rawApiKey)
    const res = await fetch(`${iam.url}/api/public/verify?privilege=full`, { headers })
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual(invalid('No api key provided'))
  })

  it('answers 401 Invalid key for a malformed, tampered, unknown, other-privilege or revoked token', async () => {
    const token = await newToken(iam, user, { privilege: 'demo' })
    const [prefix, payload, checksum] = token.rawApiKey.split('_') as [string, string, string]
    const flipped = payload.startsWith('A') ? `B${payload.slice(1)}` : `A${payload.slice(1)}`
    for (const [key, privilege] of [
      ['not-a-token', 'demo'], [`${prefix}_${payload}`, 'demo'], [`${prefix}_${flipped}_${checksum}`, 'demo'],
      [token.rawApiKey, 'full'], [`api_${'0'.repeat(43)}_000000`, 'demo'],
    ] as const) {
      const res = await verify(iam, key, privilege)
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual(invalid('Invalid key'))
    }
    expect((await manage(iam, user, 'revoke', refOf(token))).status).toBe(200)
    const res = await verify(iam, token.rawApiKey, 'demo')
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual(invalid('Invalid key'))
  })

  it('answers 401 Invalid key for an expired token', async () => {
    const token = await newToken(iam, user, { expires: 1000 })
    expect((await verify(iam, token.rawApiKey, 'full')).status).toBe(200)
    await advanceClock(iam, 1001)
    const res = await verify(iam, token.rawApiKey, 'full')
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual(invalid('Invalid key'))
  })

  it('answers 401 Invalid Host from a host outside the allow-list; listed and IPv4-mapped hosts pass', async () => {
    const token = await newToken(iam, user, { ipv4: ['192.0.2.44'] })
    const outside = await verify(iam, token.rawApiKey, 'full', '192.0.2.45')
    expect(outside.status).toBe(401)
    expect(await outside.json()).toEqual(invalid('Invalid Host'))
    expect((await verify(iam, token.rawApiKey, 'full', '192.0.2.44')).status).toBe(200)
    expect((await verify(iam, token.rawApiKey, 'full', '::ffff:192.0.2.44')).status).toBe(200)
  })

  it('answers 403 banned for XSS in the privilege', async () => {
    const token = await newToken(iam, user)
    const res = await verify(iam, token.rawApiKey, '<script>alert(1)</script>')
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({ banned: true, code: 'xss_rejected' })
  })

  it('logs failures at info with branch api_tokens and type verify, never the token', async () => {
    const token = await newToken(iam, user)
    const before = iam.logs.length
    await verify(iam, token.rawApiKey, 'demo')
    const logs = await flushedLogs(iam)
    const lines = logs.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines).toContainEqual(expect.objectContaining({ level: 'info', branch: 'api_tokens', type: 'verify', reason: 'Invalid key' }))
    expect(logs.some((line) => line.includes(token.rawApiKey.split('_')[1]!))).toBe(false)
  })

  it('counts exactly under 1,000 concurrent verifications of one token', async () => {
    const token = await newToken(iam, user)
    const statuses = await Promise.all(Array.from({ length: 1000 }, async () => (await verify(iam, token.rawApiKey, 'full')).status))
    expect(statuses.filter((s) => s === 200)).toHaveLength(1000)
    const meta = await jsonOf(await manage(iam, user, 'metadata', refOf(token)))
    expect(meta).toMatchObject({ ok: true, data: { tokenMeta: { usageCount: 1000 } } })
  }, 120_000)
})

// skipped without DATABASE_URL: two instances share a count only through PostgreSQL (PGlite is one process's own)
describe.skipIf(skippedWithout('postgres'))(titled('counted verification across instances (PostgreSQL)', 'postgres'), () => {
  let second: IamServer
  beforeAll(async () => {
    second = await startIam({ config: { ...PROXY_CONFIG, rate_limiters: { apiTokensLimiters: WIDE_LIMITERS } }, env: CLOCK_ENV, share: iam.share })
  }, 300_000)
  afterAll(() => second?.stop())

  it('counts exactly when two instances verify one token at once: each counted answer has its own count, 1 to n', async () => {
    const token = await newToken(iam, user)
    const answers = await Promise.all(
      Array.from({ length: 400 }, async (_, i) => {
        const res = await verify(i % 2 ? second : iam, token.rawApiKey, 'full')
        return { status: res.status, count: ((await res.json()) as { data?: { usageCount?: number } }).data?.usageCount }
      }),
    )
    // a loaded machine may shed some with 503 (pool wait); whatever was answered 200 was
    // counted once, and nothing else was counted
    const counted = answers.filter((a) => a.status === 200).map((a) => a.count!)
    expect(counted.length).toBeGreaterThan(0)
    expect(counted.sort((a, b) => a - b)).toEqual(Array.from({ length: counted.length }, (_, i) => i + 1))
    const meta = await jsonOf(await manage(second, user, 'metadata', refOf(token)))
    expect(meta).toMatchObject({ ok: true, data: { tokenMeta: { usageCount: counted.length } } })
  }, 120_000)
})
