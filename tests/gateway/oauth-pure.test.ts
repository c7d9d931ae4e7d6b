/**
 * The OAuth flow's pure rules, without a server: the signed state cookie, the at_hash and azp
 * checks, email resolution and the mode-drop merge.
 */
import { describe, expect, it } from 'vitest'
import { atHashMatches, azpMatches, jwsAlg } from '../../server/utils/oauth/id-token-checks'
import { mapProviderError } from '../../server/utils/oauth/error-codes'
import { signState, verifyState } from '../../server/utils/oauth/state-cookie'
import { mergeDrop, resolveEmail, scanForEmail } from '../../server/utils/oauth/user-profile'
import type { ProviderConfig } from '../../server/utils/gateway-config'

const SECRET = 's'.repeat(40)
const STATE = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG'

describe('state cookie', () => {
  it('returns the state and device for a fresh value signed for the same provider', () => {
    expect(verifyState(SECRET, 'demo', signState(SECRET, 'demo', STATE, 2_000, 'c0ffee'), 1_999)).toEqual({ state: STATE, device: 'c0ffee' })
    expect(verifyState(SECRET, 'demo', signState(SECRET, 'demo', STATE, 2_000), 1_999)).toEqual({ state: STATE, device: '' })
    // a device value that does not fit the format is left out rather than breaking the cookie
    expect(verifyState(SECRET, 'demo', signState(SECRET, 'demo', STATE, 2_000, 'a.b;c'), 1_999)).toEqual({ state: STATE, device: '' })
  })

  it('is stale at its expiry', () => {
    expect(verifyState(SECRET, 'demo', signState(SECRET, 'demo', STATE, 2_000), 2_000)).toBeNull()
  })

  it('refuses a value signed with the keyword of another provider or another secret', () => {
    expect(verifyState(SECRET, 'demo', signState(SECRET, 'other', STATE, 2_000), 1_000)).toBeNull()
    expect(verifyState(SECRET, 'demo', signState('t'.repeat(40), 'demo', STATE, 2_000), 1_000)).toBeNull()
  })

  it('refuses an extended expiry, a swapped state or a swapped device under the old signature', () => {
    const [state, , device, mac] = signState(SECRET, 'demo', STATE, 2_000, 'dev1').split('.')
    expect(verifyState(SECRET, 'demo', `${state}.9999999.${device}.${mac}`, 1_000)).toBeNull()
    expect(verifyState(SECRET, 'demo', `${'z'.repeat(43)}.2000.${device}.${mac}`, 1_000)).toBeNull()
    expect(verifyState(SECRET, 'demo', `${state}.2000.dev2.${mac}`, 1_000)).toBeNull()
    expect(verifyState(SECRET, 'demo', undefined, 1_000)).toBeNull()
    expect(verifyState(SECRET, 'demo', 'a.b', 1_000)).toBeNull()
  })
})

describe('ID token checks', () => {
  it('computes at_hash as in OpenID Connect Core appendix A.4 (RS256)', () => {
    expect(atHashMatches({ at_hash: '77QmUPtjPfzWtF2AnpK9RQ' }, 'RS256', 'jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y')).toBe(true)
    expect(atHashMatches({ at_hash: '77QmUPtjPfzWtF2AnpK9RQ' }, 'RS256', 'another-token')).toBe(false)
    expect(atHashMatches({}, 'RS256', 'any')).toBe(true)
    expect(atHashMatches({ at_hash: 'x' }, 'none', 'any')).toBe(false)
  })

  it('reads the alg of a compact JWS header and returns null for anything malformed', () => {
    const segment = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
    expect(jwsAlg(`${segment({ alg: 'RS256', kid: 'k' })}.${segment({ sub: 'x' })}.c2ln`)).toBe('RS256')
    expect(jwsAlg(`${segment({ alg: 'EdDSA' })}..`)).toBe('EdDSA')
    for (const bad of [
      '', '.', 'not-a-jws', `%%%.${segment({})}.sig`, `${segment('RS256')}.e30.sig`, `${segment([1])}.e30.sig`,
      `${segment({ alg: 7 })}.e30.sig`, `${segment({})}.e30.sig`, `${Buffer.from('{"alg":').toString('base64url')}.e30.sig`,
    ]) {
      expect(jwsAlg(bad)).toBeNull()
    }
  })

  it('accepts a missing azp or our client_id only', () => {
    expect(azpMatches({}, 'me')).toBe(true)
    expect(azpMatches({ azp: 'me' }, 'me')).toBe(true)
    expect(azpMatches({ azp: 'you' }, 'me')).toBe(false)
  })

  it('passes known provider error codes through and maps the rest to access_denied', () => {
    expect(mapProviderError('login_required')).toBe('login_required')
    expect(mapProviderError('<script>')).toBe('access_denied')
  })
})

describe('user object', () => {
  const provider = { kind: 'oauth', name: 'p' } as ProviderConfig

  it('scans nested values before keys for an email-shaped value', () => {
    expect(scanForEmail({ a: 1, b: { c: ['x', 'found@example.com'] } })).toBe('found@example.com')
    expect(scanForEmail({ 'key@example.com': true })).toBe('key@example.com')
    expect(scanForEmail({ a: 'not an email', b: 'a@b' })).toBeNull()
  })

  it('prefers the profile email, then the callback, and fails on a callback that throws', async () => {
    const ctx = { provider, user: {} }
    expect(await resolveEmail({ email: 'own@example.com' }, 't', { emailCallBack: () => 'cb@example.com' }, ctx)).toEqual({ ok: true, email: 'own@example.com' })
    expect(await resolveEmail({ other: 'scan@example.com' }, 't', { emailCallBack: () => 'cb@example.com' }, ctx)).toEqual({ ok: true, email: 'cb@example.com' })
    expect(await resolveEmail({}, 't', { emailCallBack: () => 'nope' }, ctx)).toEqual({ ok: false, code: 'email_missing' })
    expect(await resolveEmail({}, 't', { emailCallBack: () => Promise.reject(new Error('down')) }, ctx)).toEqual({ ok: false, code: 'callback_failed' })
  })

  it('keeps existing keys, the first callback wins, and prototype keys are never copied', () => {
    const dropped: string[] = []
    const merged = mergeDrop({ sub: '1', email: 'a@example.com' }, [{ email: 'evil@example.com', org: 'x' }, JSON.parse('{"org":"y","__proto__":{"admin":true},"team":"t"}')], (key) => dropped.push(key))
    expect(merged).toEqual({ sub: '1', email: 'a@example.com', org: 'x', team: 't' })
    expect(({} as Record<string, unknown>)['admin']).toBeUndefined()
    expect(dropped).toEqual(['email', 'org', '__proto__'])
  })
})
