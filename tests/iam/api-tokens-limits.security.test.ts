import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, PROXY_CONFIG, signupUser, type Session } from '../helpers/accounts'
import { startIam, type IamServer } from '../helpers/iam-server'
import { manage, newToken as mintOn, refOf, verify, WIDE, WIDE_LIMITERS } from './api-tokens-http'

// Spec "Limits", API token rate limiters, Application rules 1-5, with shrunk limits.
const SHORT = (points: number) => ({ points, duration: 600, blockDuration: 600 })

let iam: IamServer
let onSuccess: IamServer
let user: Session
let user2: Session
beforeAll(async () => {
  ;[iam, onSuccess] = await Promise.all([
    startIam({
      config: {
        ...PROXY_CONFIG,
        rate_limiters: {
          apiTokensLimiters: {
            ...WIDE_LIMITERS,
            consumptionRateLimiter: SHORT(2),
            generalUnionLimiter: { burst: SHORT(5), slow: WIDE },
            operationRateLimits: { ...WIDE_LIMITERS.operationRateLimits, revokeTokensLimiter: SHORT(2) },
          },
        },
      },
    }),
    startIam({
      config: {
        ...PROXY_CONFIG,
        apiTokens: { rateLimitOnSuccessfulRequest: true },
        rate_limiters: { apiTokensLimiters: { ...WIDE_LIMITERS, generalUnionLimiter: { burst: SHORT(2), slow: WIDE } } },
      },
    }),
  ])
  ;[user, user2] = await Promise.all([signupUser(iam), signupUser(onSuccess)])
}, 300_000)
afterAll(async () => {
  await Promise.all([iam?.stop(), onSuccess?.stop()])
})

// Tokens are minted from fresh addresses of the session's /24 (no IP-drift anomaly), so the
// limiter keys under test (IP, IP_list-metadata) only see the calls a test makes on purpose.
let mintCount = 100
const newToken = (server: IamServer, s: Session, body: Record<string, unknown> = {}) =>
  mintOn(server, s, body, { ip: `203.0.113.${mintCount++}` })

/** Asserts a 429 `{ error, retry }` and a Retry-After equal to retry; returns retry. */
async function expect429(res: Response): Promise<number | 'permanent'> {
  expect(res.status).toBe(429)
  const body = (await res.json()) as { error: string; retry: number | 'permanent' }
  expect(body).toEqual({ error: 'Too many requests', code: 'rate_limited', retry: expect.anything() })
  expect(res.headers.get('retry-after')).toBe(String(body.retry))
  return body.retry
}

async function expectNumeric429(res: Response) {
  const retry = await expect429(res)
  expect(typeof retry).toBe('number')
  expect(retry).toBeGreaterThan(0)
  expect(retry).toBeLessThanOrEqual(600)
}

async function expectPermanent429(res: Response) {
  expect(await expect429(res)).toBe('permanent')
}

async function statuses(calls: Array<() => Promise<Response>>): Promise<number[]> {
  const out: number[] = []
  for (const c of calls) out.push((await c()).status)
  return out
}

describe('consumptionRateLimiter (failed verifications)', () => {
  it('answers the first rejection with a numeric retry, then permanent, even for a valid key', async () => {
    const token = await newToken(iam, user)
    const ip = '198.51.100.1'
    expect(await statuses([() => verify(iam, undefined, 'full', ip), () => verify(iam, undefined, 'full', ip)])).toEqual([401, 401])
    await expectNumeric429(await verify(iam, undefined, 'full', ip))
    await expectPermanent429(await verify(iam, undefined, 'full', ip))
    await expectPermanent429(await verify(iam, token.rawApiKey, 'full', ip))
    expect((await verify(iam, token.rawApiKey, 'full', '198.51.100.99')).status).toBe(200)
  })

  it('counts failed verifications per token and per IP', async () => {
    const token = await newToken(iam, user, { privilege: 'demo' })
    const ip = '198.51.100.2'
    expect(await statuses([() => verify(iam, token.rawApiKey, 'full', ip), () => verify(iam, token.rawApiKey, 'full', '198.51.100.3')])).toEqual([401, 401])
    // the token key is at its limit whatever the IP
    await expectNumeric429(await verify(iam, token.rawApiKey, 'full', '198.51.100.4'))
    await expectPermanent429(await verify(iam, token.rawApiKey, 'demo', '198.51.100.5'))
  })

  it('counts invalid privileges and an unresolvable key the same way', async () => {
    const token = await newToken(iam, user)
    const ip = '198.51.100.6'
    expect(await statuses([() => verify(iam, token.rawApiKey, 'admin', ip), () => verify(iam, token.rawApiKey, 'nope', ip)])).toEqual([400, 400])
    await expectNumeric429(await verify(iam, token.rawApiKey, 'root', ip))
  })

  it('is reset for the IP, the token and IP_verify by a successful verification', async () => {
    const token = await newToken(iam, user)
    const ip = '198.51.100.7'
    const bad = () => verify(iam, token.rawApiKey, 'demo', ip)
    const good = () => verify(iam, token.rawApiKey, 'full', ip)
    const none = () => verify(iam, undefined, 'full', ip)
    expect(await statuses([bad, none, good, bad, bad, none, none])).toEqual([401, 401, 200, 401, 401, 401, 401])
    await expectNumeric429(await bad())
  })

  // Concurrent verifications of one token from one client share their look at the limiter's keys
  // (one store round trip per batch): every one of them must still get the block, or the reset.
  it('refuses every one of 50 concurrent verifications of a valid token from a blocked IP, and counts none', async () => {
    const token = await newToken(iam, user)
    const ip = '198.51.100.8'
    expect(await statuses([() => verify(iam, undefined, 'full', ip), () => verify(iam, undefined, 'full', ip)])).toEqual([401, 401])
    await expectNumeric429(await verify(iam, undefined, 'full', ip))
    const answers = await Promise.all(Array.from({ length: 50 }, () => verify(iam, token.rawApiKey, 'full', ip)))
    for (const res of answers) await expectPermanent429(res)
    const counted = await verify(iam, token.rawApiKey, 'full', '198.51.100.97')
    expect(((await counted.json()) as { data: { usageCount: number } }).data.usageCount).toBe(1)
  })

  it('is reset by concurrent successful verifications as by a lone one', async () => {
    const token = await newToken(iam, user)
    const ip = '198.51.100.9'
    const bad = () => verify(iam, token.rawApiKey, 'demo', ip)
    expect((await bad()).status).toBe(401)
    const answers = await Promise.all(Array.from({ length: 50 }, () => verify(iam, token.rawApiKey, 'full', ip)))
    expect(answers.map((res) => res.status)).toEqual(Array(50).fill(200))
    // one failure was forgotten: two more are answered 401 before the limit refuses
    expect(await statuses([bad, bad])).toEqual([401, 401])
    await expectNumeric429(await bad())
  })
})

describe('generalUnionLimiter', () => {
  it('blocks the client IP of management actions at its first rejection: numeric, then permanent', async () => {
    const ip = '203.0.113.21'
    const bad = () => manage(iam, user, 'revoke', { nope: true }, { ip })
    expect(await statuses([bad, bad, bad, bad, bad])).toEqual([400, 400, 400, 400, 400])
    await expectNumeric429(await bad())
    await expectPermanent429(await bad())
    await expectPermanent429(await manage(iam, user, 'new-token', { privilege: 'demo', name: 'blocked' }, { ip }))
    // listing is keyed IP_list-metadata: not blocked by the IP key
    expect((await manage(iam, user, 'list-metadata', undefined, { ip })).status).toBe(200)
  })

  it('is reset for the IP by a successful management action', async () => {
    const ip = '203.0.113.22'
    const bad = () => manage(iam, user, 'revoke', { nope: true }, { ip })
    const good = () => manage(iam, user, 'new-token', { privilege: 'demo', name: `ok-${Math.random()}` }, { ip })
    expect(await statuses([bad, bad, bad, bad, good, bad, bad, bad, bad, bad])).toEqual([400, 400, 400, 400, 201, 400, 400, 400, 400, 400])
  })

  it('keys listing IP_list-metadata, which nothing resets', async () => {
    const ip = '203.0.113.23'
    const list = () => manage(iam, user, 'list-metadata', undefined, { ip })
    expect(await statuses([list, list, list, list, list])).toEqual([200, 200, 200, 200, 200])
    await expectNumeric429(await list())
    expect((await manage(iam, user, 'new-token', { privilege: 'demo', name: 'while-listing-blocked' }, { ip })).status).toBe(201)
    await expectPermanent429(await list())
  })

  it('runs on verification only with rateLimitOnSuccessfulRequest, keyed IP_verify, never reset by success', async () => {
    const token = await newToken(onSuccess, user2)
    const ip = '198.51.100.40'
    expect(await statuses([() => verify(onSuccess, token.rawApiKey, 'full', ip), () => verify(onSuccess, token.rawApiKey, 'full', ip)])).toEqual([200, 200])
    await expectNumeric429(await verify(onSuccess, token.rawApiKey, 'full', ip))
    await expectPermanent429(await verify(onSuccess, token.rawApiKey, 'full', ip))
    // without the option, successes are never limited
    const plain = await newToken(iam, user)
    expect(await statuses(Array.from({ length: 8 }, () => () => verify(iam, plain.rawApiKey, 'full', ip)))).toEqual(Array(8).fill(200))
  })
})

describe('operation limiters (IP_userId)', () => {
  it('reject twice with a numeric retry, block permanently at the second rejection, and are not reset by success', async () => {
    const ip = '203.0.113.24'
    const a = await newToken(iam, user)
    const b = await newToken(iam, user)
    expect((await manage(iam, user, 'revoke', refOf(a), { ip })).status).toBe(200)
    expect((await manage(iam, user, 'revoke', refOf(a), { ip })).status).toBe(401)
    await expectNumeric429(await manage(iam, user, 'revoke', refOf(b), { ip }))
    await expectNumeric429(await manage(iam, user, 'revoke', refOf(b), { ip }))
    await expectPermanent429(await manage(iam, user, 'revoke', refOf(b), { ip }))
    // other operations have their own limiter
    expect((await manage(iam, user, 'metadata', refOf(b), { ip })).status).toBe(200)
  })
})

describe('XSS in management bodies', () => {
  it('answers 403 banned and bans the device', async () => {
    const victim = await signupUser(iam, { client: { ip: '203.0.113.30' } })
    const res = await manage(iam, victim, 'new-token', { privilege: 'demo', name: '<img src=x onerror=alert(1)>' })
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({ banned: true, code: 'xss_rejected' })
    expect((await call(iam, 'GET', '/check', { client: victim })).status).toBe(403)
    const list = (await (await manage(iam, victim, 'list-metadata')).json()) as { data?: { total: number } }
    expect(list.data?.total ?? 0).toBe(0)
  })
})
