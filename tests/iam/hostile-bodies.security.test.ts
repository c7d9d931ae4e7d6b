/**
 * Property: no JSON route of the IAM answers 5xx, whatever strings its body carries (NUL, control
 * characters, lone surrogates, long strings, mixed with valid-shaped fields). The routes come from
 * the route table, so a new JSON route is covered without touching this file. Authenticated routes
 * get a valid session, so their bodies are really validated.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROUTE_RULES } from '../../iam/lib/route-rules'
import { authedGet, call, PROXY_CONFIG, signupUser, STRONG_PASSWORD, type Session } from '../helpers/accounts'
import { startIam, type IamServer } from '../helpers/iam-server'
import { WIDE, WIDE_LIMITERS } from './api-tokens-http'

const RUNS_PER_ROUTE = 30

let iam: IamServer
let user: Session
beforeAll(async () => {
  const wide = Object.fromEntries(['signup', 'login', 'oauth', 'refresh', 'links', 'codes', 'forgotPassword', 'emails'].map((name) => [name, WIDE]))
  iam = await startIam({
    config: {
      ...PROXY_CONFIG,
      providers: [{ name: 'demo', useStandardProfile: true }],
      rate_limiters: { apiTokensLimiters: WIDE_LIMITERS, ...wide },
    },
  })
  user = await signupUser(iam, { client: { ip: '203.0.113.190' } })
}, 240_000)
afterAll(() => iam?.stop())

/** Path parameters of the table's patterns; an unknown one fails the test so it gets a value here. */
const PATH_PARAMS: Record<string, string> = { ':reason': 'PAYMENT_CONFIRM', ':providerName': 'demo' }
const concretePath = (pattern: string) =>
  pattern.replace(/:[A-Za-z]+/g, (param) => {
    const value = PATH_PARAMS[param]
    if (!value) throw new Error(`no test value for ${param} in ${pattern}`)
    return value
  })

// Link routes validate their query before the body: a well-shaped (unusable) link gets past that.
const LINK_QUERY = `?token=a.b.c&random=${'A'.repeat(43)}&reason=change_email&visitor=v1`

const char = (min: number, max: number) => fc.integer({ min, max }).map((c) => String.fromCharCode(c))
const hostileChar = fc.oneof(char(0, 0x1f), fc.constantFrom('\u007f', '\u0085', '\u009f'), char(0xd800, 0xdfff))
// plain text that the XSS filter leaves alone, so the device is never banned mid-run
const plain = fc.stringMatching(/^[A-Za-z0-9 .@_-]{0,16}$/)
const hostile = fc.oneof(
  fc.tuple(plain, hostileChar, plain).map(([a, c, b]) => a + c + b),
  fc.array(hostileChar, { minLength: 1, maxLength: 8 }).map((chars) => chars.join('')),
  fc.nat({ max: 600 }).map((n) => 'x'.repeat(n)),
)

/** Valid-shaped values of the fields the IAM's routes read. */
const VALID: Record<string, fc.Arbitrary<unknown>> = {
  email: fc.constant('someone@example.com'),
  newEmail: fc.constant('other@example.com'),
  password: fc.constant(STRONG_PASSWORD),
  confirmedPassword: fc.constant(STRONG_PASSWORD),
  currentPassword: fc.constant(STRONG_PASSWORD),
  name: plain,
  termsConsent: fc.constant('on'),
  rememberUser: fc.constantFrom('on', 'off'),
  note: plain,
  code: fc.constant('1234567'),
  privilege: fc.constantFrom('demo', 'full'),
  newPrivilege: fc.constantFrom('demo', 'full'),
  prefix: fc.constant('api'),
  expires: fc.constant(60_000),
  ipv4: fc.constant(['192.0.2.1']),
  tokenId: fc.constant(1),
  publicIdentifier: fc.constant('abc_123456'),
  sub: plain,
  email_verified: fc.boolean(),
  given_name: plain,
  family_name: plain,
  picture: plain,
}

const fieldValue = (field: string) =>
  fc.oneof(
    { weight: 3, arbitrary: hostile },
    { weight: 2, arbitrary: VALID[field]! },
    { weight: 1, arbitrary: fc.array(hostile, { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.dictionary(hostile, hostile, { maxKeys: 2 }) },
  )

// A few fields per body, so most bodies stay under the 1kb limit and reach validation.
const hostileBody = fc
  .tuple(
    fc.subarray(Object.keys(VALID), { minLength: 1, maxLength: 5 }).chain((fields) =>
      fc.record(Object.fromEntries(fields.map((field) => [field, fieldValue(field)]))),
    ),
    fc.dictionary(hostile, hostile, { maxKeys: 1 }),
  )
  .map(([known, extra]) => ({ ...extra, ...known }))

const JSON_ROUTES = ROUTE_RULES.filter((rule) => rule.body.kind === 'json' && !rule.testOnly)

describe('every JSON route with hostile strings in its body', () => {
  it('covers the JSON routes of the table', () => {
    expect(JSON_ROUTES.length).toBeGreaterThanOrEqual(15)
  })

  for (const rule of JSON_ROUTES) {
    it(`${rule.method} ${rule.path} never answers 5xx`, async () => {
      const path = concretePath(rule.path) + LINK_QUERY
      const statuses = new Set<number>()
      await fc.assert(
        fc.asyncProperty(hostileBody, async (body) => {
          const res = await call(iam, rule.method, path, {
            client: user,
            body,
            ...(rule.auth ? { cookies: { session: user.refreshToken }, bearer: user.accessToken } : {}),
          })
          await res.arrayBuffer()
          statuses.add(res.status)
          expect(res.status, JSON.stringify(body)).toBeLessThan(500)
        }),
        { numRuns: RUNS_PER_ROUTE },
      )
      // the bodies were read and judged, not all refused for their size
      expect(statuses.has(400)).toBe(true)
    })
  }

  it('left the session usable, so the authenticated routes validated their bodies', async () => {
    expect((await authedGet(iam, user)).status).toBe(200)
  })
})
