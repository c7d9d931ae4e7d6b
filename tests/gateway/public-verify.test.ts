/**
 * GET /api/public/verify on the gateway: machine clients verify API tokens through the gateway,
 * which signs the call to the IAM (HMAC on) and passes the IAM's answer through unchanged.
 */
// store-independent: the gateway keeps no store of its own; token verification and its counts run on both stores in tests/iam/api-tokens-verify.test.ts
import { fetch } from '@nuxt/test-utils/e2e'
import { beforeAll, describe, expect, it } from 'vitest'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { browserLike, freshEmail, hmac, PASSWORD, setupStack } from './bff-harness'

const stack = await setupStack({}, {}, { iam: CLOCK_ENV })
let rawApiKey: string
let restrictedKey: string

beforeAll(async () => {
  const b = browserLike(stack.gateway.url)
  const signup = await b.call('/api/auth/signup', {
    method: 'POST',
    body: { email: freshEmail('verify'), password: PASSWORD, confirmedPassword: PASSWORD, name: 'Verifier', termsConsent: 'on' },
  })
  expect(signup.status, signup.text).toBe(201)
  const created = await b.call('/api/tokens', { method: 'POST', body: { name: 'machine', privilege: 'protected' } })
  expect(created.status, created.text).toBe(201)
  rawApiKey = (created.json.data as { rawApiKey: string }).rawApiKey
  // the union limiter allows one management action per second per IP (its default burst, docs/configuration.md): move the IAM past it
  await advanceClock(stack.iam, 1001, hmac)
  const restricted = await b.call('/api/tokens', {
    method: 'POST',
    body: { name: 'office-only', privilege: 'protected', ipv4: ['203.0.113.7'] },
  })
  expect(restricted.status, restricted.text).toBe(201)
  restrictedKey = (restricted.json.data as { rawApiKey: string }).rawApiKey
})

const verify = (key: string | undefined, privilege = 'protected') =>
  fetch(`/api/public/verify?privilege=${privilege}`, { headers: key ? { 'x-api-key': key } : {} })

describe('API token verification through the gateway', () => {
  it('verifies a valid key with the IAM envelope and counts the use', async () => {
    const res = await verify(rawApiKey)
    expect(res.status).toBe(200)
    const body = (await res.json()) as { ok: boolean; date: string; data: Record<string, unknown> }
    expect(body).toMatchObject({ ok: true, data: { name: 'machine', providedPrivilege: 'protected' } })
    expect(typeof body.date).toBe('string')
    expect((body.data as { usageCount: number }).usageCount).toBeGreaterThanOrEqual(1)
  })

  it('passes the IAM refusals through: no key, wrong privilege, malformed privilege', async () => {
    const missing = await verify(undefined)
    expect(missing.status).toBe(401)
    expect(await missing.json()).toMatchObject({ ok: false, reason: 'No api key provided' })

    const wrong = await verify(rawApiKey, 'full')
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toMatchObject({ ok: false, reason: 'Invalid key' })

    const bad = await verify(rawApiKey, 'root')
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ ok: false, reason: 'Bad Request' })
  })

  it('applies the key IP allow-list: a caller outside it gets Invalid Host', async () => {
    const res = await verify(restrictedKey)
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ ok: false, reason: 'Invalid Host' })
  })

  // the file's last test: the gateway restarts in front of an address nothing listens on
  it('answers 503 without internals when the IAM is unreachable', async () => {
    await stack.gateway.restart({ iam: { url: 'http://127.0.0.1:9', hmac }, cookieSecret: 'bff-test-cookie-secret-0123456789abcdef01' })
    const res = await verify(rawApiKey)
    expect(res.status).toBe(503)
    expect(await res.text()).not.toContain('ECONNREFUSED')
  })
})
