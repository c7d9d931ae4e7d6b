/**
 * Property: no JSON route of the IAM answers 5xx, whatever strings its body carries (NUL, control
 * characters, lone surrogates, long strings, mixed with valid-shaped fields), and every failure it
 * answers carries a code the route declares for that status. The routes come from the route table,
 * so a new JSON route is covered without touching this file. Authenticated routes get a valid
 * session, so their bodies are really validated.
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { codeProblem } from '../../iam/contract/responses'
import { authedGet, call, signupUser, STRONG_PASSWORD, type Session } from '../helpers/accounts'
import { sharedIam } from '../helpers/shared-iam'
import { JSON_BODY } from './route-table'

const RUNS_PER_ROUTE = 40

const iam = sharedIam()
let user: Session
beforeAll(async () => {
  user = await signupUser(iam, { client: { ip: '203.0.113.190' } })
  // a platform administrator (the test build's users:grant-admin), so the /admin routes validate their bodies too
  const granted = await fetch(`${iam.url}/__test/platform-admin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: user.email, admin: true }) })
  if (granted.status !== 200) throw new Error(`granting the admin role answered ${granted.status}`)
})

const char = (min: number, max: number) => fc.integer({ min, max }).map((c) => String.fromCharCode(c))
const hostileChar = fc.oneof(char(0, 0x1f), fc.constantFrom('\u007f', '\u0085', '\u009f'), char(0xd800, 0xdfff))
// plain text that the XSS filter leaves alone, so the device is never banned mid-run
const plain = fc.stringMatching(/^[A-Za-z0-9 .@_-]{0,16}$/)
const hostile = fc.oneof(
  fc.tuple(plain, hostileChar, plain).map(([a, c, b]) => a + c + b),
  fc.array(hostileChar, { minLength: 1, maxLength: 8 }).map((chars) => chars.join('')),
  fc.nat({ max: 600 }).map((n) => 'x'.repeat(n)),
)

/**
 * A valid-shaped body per JSON route (keyed by the table's path): the property replaces some of its
 * fields with hostile values, so a hostile value sits next to valid ones and reaches the route's
 * own validation and queries, not only a "field missing" answer. A route missing here fails.
 */
const REF = { tokenId: 1, publicIdentifier: 'abc_123456', name: 'key' }
const CREDENTIAL = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', clientExtensionResults: {} }
const VALID_BODIES: Record<string, Record<string, unknown>> = {
  '/signup': { email: 'someone@example.com', password: STRONG_PASSWORD, confirmedPassword: STRONG_PASSWORD, name: 'Some One', termsConsent: 'on', rememberUser: 'off', invitationToken: 'A'.repeat(43) },
  '/login': { email: 'someone@example.com', password: STRONG_PASSWORD, rememberUser: 'on' },
  '/auth/admin-bootstrap': { code: 'not-the-code-of-this-start' },
  '/auth/OAuth/:providerName': { sub: 'sub-1', email: 'oauth@example.com', email_verified: true, name: 'Ada', given_name: 'Ada', family_name: 'L', picture: 'https://example.com/a.png' },
  '/auth/verify-mfa': { code: '1234567' },
  '/auth/verify-mfa/code': { code: '1234567' },
  '/auth/user/api-access-token': { audience: 'https://api.example.com' },
  '/custom/mfa/:reason': { note: 'pay the invoice' },
  '/auth/verify-custom-mfa': { code: '1234567' },
  '/update/email': { code: '1234567', newEmail: 'other@example.com' },
  '/auth/forgot-password': { email: 'someone@example.com' },
  '/auth/email-sign-in': { email: 'someone@example.com', method: 'link', rememberUser: 'on' },
  '/auth/email-sign-in/code': { email: 'someone@example.com', code: '1234567' },
  '/auth/reset-password': { password: STRONG_PASSWORD, confirmedPassword: STRONG_PASSWORD, revokeApiTokens: true },
  '/api/manage/new-token': { privilege: 'demo', name: 'key', prefix: 'api', expires: 60_000, ipv4: ['192.0.2.1'] },
  '/api/manage/revoke': REF,
  '/api/manage/metadata': REF,
  '/api/manage/rotate': REF,
  '/api/manage/ip-restriction-update': { ...REF, ipv4: ['192.0.2.1'] },
  '/api/manage/privilege-update': { ...REF, newPrivilege: 'full' },
  '/api/manage/revoke-all': { confirm: true },
  '/auth/sessions/revoke': { id: '00000000-0000-4000-8000-000000000000' },
  '/auth/profile': { name: 'Ada' },
  '/auth/picture/choice': { source: 'gravatar' },
  // the route takes an empty object: an extra field is where the hostile strings go
  '/auth/sessions/revoke-others': { unused: 'x' },
  '/auth/change-password': { currentPassword: 'not-the-password', password: STRONG_PASSWORD, confirmedPassword: STRONG_PASSWORD },
  '/auth/reauthenticate': { password: 'not-the-password' },
  '/auth/verify-email/password': { newPassword: STRONG_PASSWORD, confirmedPassword: STRONG_PASSWORD },
  '/auth/totp/enable': { code: '123456' },
  '/auth/totp/disable': { code: '123456' },
  '/auth/second-factor': { challenge: 'A'.repeat(43), code: '123456' },
  '/auth/verify-custom-mfa/second-factor': { reason: 'PAYMENT_CONFIRM', code: '123456' },
  '/update/email/second-factor': { newEmail: 'other@example.com', code: '123456' },
  '/auth/passkeys/register/verify': { credential: { ...CREDENTIAL, response: { clientDataJSON: 'AAAA', attestationObject: 'AAAA' } }, name: 'key' },
  '/auth/passkeys/delete': { id: 1 },
  '/orgs': { name: 'Hostile Org', slug: 'hostile-org' },
  '/orgs/active': { orgId: '00000000-0000-4000-8000-00000000000a' },
  '/orgs/invitations/accept': { token: 'A'.repeat(43) },
  '/orgs/:orgId/members/role': { userId: '00000000-0000-4000-8000-00000000000b', role: 'member' },
  '/orgs/:orgId/members/remove': { userId: '00000000-0000-4000-8000-00000000000b' },
  '/orgs/:orgId/invitations': { email: 'invited@example.com', role: 'member' },
  '/orgs/:orgId/invitations/revoke': { invitationId: '00000000-0000-4000-8000-00000000000c' },
  '/orgs/:orgId/invitations/resend': { invitationId: '00000000-0000-4000-8000-00000000000c' },
  '/orgs/:orgId/roles': { name: 'billing', permissions: ['billing:read'] },
  '/orgs/:orgId/roles/update': { roleId: '00000000-0000-4000-8000-00000000000d', name: 'billing', permissions: ['billing:read'] },
  '/orgs/:orgId/roles/delete': { roleId: '00000000-0000-4000-8000-00000000000d' },
  '/auth/passkeys/rename': { id: 1, name: 'Laptop' },
  '/auth/oidc/apps/revoke': { clientId: 'some-client' },
  '/auth/set-password': { password: STRONG_PASSWORD, confirmedPassword: STRONG_PASSWORD },
  '/auth/linked-accounts/unlink': { provider: 'demo' },
  '/auth/passkey-signup/start': { email: 'someone@example.com', name: 'Some One', termsConsent: 'on' },
  '/auth/passkey-signup/options': { email: 'someone@example.com', code: '1234567' },
  '/auth/passkey-signup/finish': { ceremonyId: 'AAAA', credential: { ...CREDENTIAL, response: { clientDataJSON: 'AAAA', attestationObject: 'AAAA' } }, rememberUser: 'on' },
  '/auth/passkeys/login/verify': { credential: { ...CREDENTIAL, response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA' } }, rememberUser: 'on' },
  '/admin/users/:userId/ban': { reason: 'spam', until: '2100-01-01T00:00:00Z' },
  '/admin/users/:userId/factors/remove': { kind: 'passkey', id: 1 },
  '/admin/mail-templates/:kind/:locale': { texts: { subject: '{siteName}: Passwort zurücksetzen' } },
  '/admin/mail-templates/:kind/:locale/preview': { texts: { button: 'Neues Passwort' } },
  // an address literal: a name would be looked up, and the test reaches no DNS (features/webhooks/url-check.ts)
  '/admin/webhooks': { url: 'https://93.184.215.14/hook', eventTypes: ['user.deleted'], description: 'hostile bodies' },
  '/admin/oidc-clients/blocked-hosts': { host: 'agent.example' },
  '/admin/webhooks/:endpointId': { url: 'https://93.184.215.14/hook', eventTypes: ['user.*'], enabled: true },
  '/admin/webhooks/:endpointId/replay': { since: '2026-01-01T00:00:00Z', until: '2026-02-01T00:00:00Z', delivered: false },
  '/orgs/:orgId/webhooks': { url: 'https://93.184.215.14/hook', eventTypes: ['membership.created'], description: 'hostile bodies' },
  '/orgs/:orgId/webhooks/:endpointId': { url: 'https://93.184.215.14/hook', eventTypes: ['membership.*'], enabled: true },
  '/orgs/:orgId/webhooks/:endpointId/replay': { since: '2026-01-01T00:00:00Z', until: '2026-02-01T00:00:00Z', delivered: false },
  '/admin/users/import': { jsonl: '{"email":"imported@example.com","name":"Imported"}\n', dryRun: true },
  '/auth/delete-account/restore-link': { restoreProof: 'A'.repeat(43) },
  // enterprise sign-in (iam/contract/enterprise.ts)
  '/orgs/:orgId/domains': { domain: 'example-corp.test' },
  '/orgs/:orgId/domains/verify': { domainId: '00000000-0000-4000-8000-00000000000e' },
  '/orgs/:orgId/domains/remove': { domainId: '00000000-0000-4000-8000-00000000000e' },
  '/orgs/:orgId/sso': { idpEntityId: 'https://idp.example.test/e', idpSsoUrl: 'https://idp.example.test/sso', idpCertificate: 'MIIB', defaultRole: 'member', enabled: false },
  '/sso/saml/:connectionId/acs': { SAMLResponse: 'PHNhbWxwOlJlc3BvbnNlLz4=', RelayState: '/account' },
  '/sso/discover': { email: 'someone@example.com' },
}

const hostileValue = fc.oneof(
  { weight: 4, arbitrary: hostile },
  { weight: 1, arbitrary: fc.array(hostile, { minLength: 1, maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(hostile, hostile, { minKeys: 1, maxKeys: 2 }) },
)

/** The route's valid body with 1+ fields made hostile, sometimes with an extra hostile key. */
function hostileBody(valid: Record<string, unknown>) {
  const fields = Object.keys(valid)
  return fc
    .tuple(
      fc.subarray(fields, { minLength: 1, maxLength: Math.min(2, fields.length) }).chain((picked) => fc.record(Object.fromEntries(picked.map((field) => [field, hostileValue])))),
      fc.option(fc.dictionary(hostile, hostile, { minKeys: 1, maxKeys: 1 }), { freq: 4 }),
    )
    .map(([replaced, extra]) => ({ ...valid, ...replaced, ...(extra ?? {}) }))
}

const JSON_ROUTES = JSON_BODY

describe('every JSON route with hostile strings in its body', () => {
  it('covers the JSON routes of the table', () => {
    expect(JSON_ROUTES.length).toBeGreaterThanOrEqual(15)
    expect(JSON_ROUTES.map((route) => `${route.method} ${route.pattern}`)).toContain('POST /auth/change-password')
  })

  it('has a valid body in VALID_BODIES for every JSON route of the table (a new route cannot go untested)', () => {
    const missing = JSON_ROUTES.filter((route) => !VALID_BODIES[route.pattern]).map((route) => `${route.method} ${route.pattern}`)
    expect(missing, `JSON routes without a valid body in VALID_BODIES: ${missing.join(', ')}`).toEqual([])
  })

  it('keeps no VALID_BODIES entry for a path that is not a JSON route of the table', () => {
    const stale = Object.keys(VALID_BODIES).filter((path) => !JSON_ROUTES.some((route) => route.pattern === path))
    expect(stale).toEqual([])
  })

  for (const rule of JSON_ROUTES) {
    it(`${rule.method} ${rule.pattern} never answers 5xx, and answers only the codes it declares`, async () => {
      const valid = VALID_BODIES[rule.pattern]
      if (!valid) throw new Error(`no valid body for ${rule.pattern} in VALID_BODIES`)
      const path = rule.url
      const statuses = new Set<number>()
      await fc.assert(
        fc.asyncProperty(hostileBody(valid), async (body) => {
          const res = await call(iam, rule.method, path, {
            client: user,
            body,
            // every route gets the session, as before: the authenticated ones then validate the body
            cookies: { session: user.refreshToken },
            bearer: user.accessToken,
          })
          const text = await res.text()
          statuses.add(res.status)
          expect(res.status, JSON.stringify(body)).toBeLessThan(500)
          const answered: unknown = /^application\/json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text
          expect(codeProblem(rule.entry, res.status, answered), `${JSON.stringify(body)} -> ${text}`).toBeUndefined()
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
