import { describe, expect, it } from 'vitest'
import { authedGet, CHROME_UA, FIREFOX_UA, newDevice, signupUser, type Session } from '../helpers/accounts'
import type { Json } from '../helpers/iam-server'
import { waitForLog } from '../helpers/logs'
import { sharedIam } from '../helpers/shared-iam'

// the run's shared IAM: every file's log lines are in its log, so a test waits for its own user's line
const iam = sharedIam()

/** Whether a log line is about the session of `s` (its access token's `sid`, logged as familyId). */
const aboutUserOf = (s: Session) => {
  const sid = (JSON.parse(Buffer.from(s.accessToken.split('.')[1]!, 'base64url').toString()) as Json).sid as string
  return (line: string) => line.includes(`"familyId":"${sid}"`)
}

const MFA = { mfa: true, message: 'A login link has been sent to your email.', code: 'mfa_required' }

describe('protectRoute anomaly checks', () => {
  it('passes a request from the bound device, IP and browser', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.40' } })
    const res = await authedGet(iam, s)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      userId: expect.any(Number), authorized: true, ipAddress: '203.0.113.40', userAgent: CHROME_UA, date: expect.any(String), roles: ['user'],
    })
  })

  it('asks for MFA (202) on a new device cookie, and keeps answering 202 while MFA is pending', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.41' } })
    const other = await newDevice(iam, { ip: '203.0.113.41' })
    const res = await authedGet(iam, s, '/secret/data', { canary: other.canary })
    expect(res.status).toBe(202)
    expect(await res.json()).toEqual(MFA)
    // checkForActiveMfa answers from the cache, even from the original device
    const again = await authedGet(iam, s)
    expect(again.status).toBe(202)
    expect(await again.json()).toEqual(MFA)
    await waitForLog(iam, (l) => l.includes('session anomaly: MFA required') && l.includes('NEW_DEVICE') && aboutUserOf(s)(l))
  })

  it('asks for MFA when the client IP moves to another /24', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.42' } })
    const res = await authedGet(iam, s, '/secret/data', { ip: '198.51.100.42' })
    expect(res.status).toBe(202)
    await waitForLog(iam, (l) => l.includes('IP_DRIFT') && aboutUserOf(s)(l))
  })

  it('does not treat an IP change within the same /24 as an anomaly', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.43' } })
    expect((await authedGet(iam, s, '/secret/data', { ip: '203.0.113.200' })).status).toBe(200)
  })

  it('does not treat a browser version bump as an anomaly', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.44' } })
    const bumped = CHROME_UA.replace('Chrome/124.0.0.0', 'Chrome/125.0.6422.60')
    expect((await authedGet(iam, s, '/secret/data', { ua: bumped })).status).toBe(200)
  })

  it('asks for MFA when the browser family changes on the same device cookie', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.45' } })
    const res = await authedGet(iam, s, '/secret/data', { ua: FIREFOX_UA })
    expect(res.status).toBe(202)
    await waitForLog(iam, (l) => l.includes('FINGERPRINT_DRIFT') && aboutUserOf(s)(l))
  })

  it('requires re-login (401 with reason) when the access token belongs to another session', async () => {
    const a = await signupUser(iam, { client: { ip: '203.0.113.46' } })
    const b = await signupUser(iam, { client: { ip: '203.0.113.46' } })
    const res = await authedGet(iam, { ...a, accessToken: b.accessToken })
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ ok: false, date: expect.any(String), error: 'Re-login is required', code: 'relogin_required', reason: 'SESSION_MISMATCH' })
  })

  it('requires re-login when the device cookie is missing', async () => {
    const s = await signupUser(iam, { client: { ip: '203.0.113.47' } })
    const res = await authedGet(iam, s, '/secret/data', { canary: undefined })
    expect(res.status).toBe(401)
    expect(((await res.json()) as Json).reason).toBe('DEVICE_COOKIE_MISSING')
  })
})
