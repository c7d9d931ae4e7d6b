/**
 * The resource servers' verifier (verifier/) with the IAM's own session access tokens: EdDSA,
 * keys at GET /.well-known/jwks.json, the issuer and audience of `jwt.access_tokens`, roles in the
 * `roles` claim (they carry no `scope`).
 */
import { describe, expect, it } from 'vitest'
import { createAccessTokenVerifier } from '../../verifier/index.js'
import { signupUser } from '../helpers/accounts'
import { sharedIam } from '../helpers/shared-iam'

// the run's shared IAM: its config sets the issuer and audience below
const iam = sharedIam()
const ISSUER = 'https://iam.example'
const AUDIENCE = 'https://app.example'

describe("the verifier with the IAM's session access tokens", () => {
  it('verifies one against the published keys: subject, session, roles; a role it lacks is 403', async () => {
    const session = await signupUser(iam, { client: { ip: '203.0.113.81' } })
    const verify = createAccessTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: `${iam.url}/.well-known/jwks.json` })
    const result = await verify(`Bearer ${session.accessToken}`, { requiredRoles: ['user'] })
    expect(result).toMatchObject({ ok: true, subject: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/), scopes: [], roles: ['user'], header: { alg: 'EdDSA', typ: 'at+jwt' } })
    if (result.ok) expect(result.claims.sid).toEqual(expect.any(String))
    expect(await verify(session.accessToken, { requiredRoles: ['admin'] })).toMatchObject({ ok: false, status: 403, reason: 'insufficient_scope' })
  })

  it('refuses it for another audience, or when only RS256 is allowed', async () => {
    const session = await signupUser(iam, { client: { ip: '203.0.113.82' } })
    const jwksUri = `${iam.url}/.well-known/jwks.json`
    expect(await createAccessTokenVerifier({ issuer: ISSUER, audience: 'https://other.example', jwksUri })(session.accessToken)).toMatchObject({ status: 401, reason: 'wrong_audience' })
    expect(await createAccessTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri, algorithms: ['RS256'] })(session.accessToken)).toMatchObject({
      status: 401,
      reason: 'disallowed_algorithm',
    })
  })
})
