/**
 * Account deletion through the gateway, seen by an app that signed in with us: the BFF's request
 * and confirmation (the browser's cookies cleared with it), and, the moment the deletion is
 * confirmed, the app's access token introspects as inactive and its refresh token is refused
 * (the OpenID Provider's grants end with the account, iam/features/account-deletion).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mailTo } from '../e2e/auth-stack'
import { Browser, codeFlow, introspect, refresh, signUp, startOpStack, type OpStack, type RegisteredClient } from '../helpers/oidc-op'
import { linkQueryOf } from '../helpers/smtp'

let op: OpStack

beforeAll(async () => {
  op = await startOpStack()
})
afterAll(() => op?.stop())

/** oidc-provider keeps offline_access only when the request also says prompt=consent (OIDC Core 11). */
const OFFLINE = { scope: 'openid offline_access', prompt: 'consent' }

async function refreshError(rp: RegisteredClient, token: string): Promise<unknown> {
  try {
    await refresh(op, rp, token)
  } catch (error) {
    return (error as { error?: string }).error
  }
  return 'succeeded'
}

describe('account deletion and the apps signed in with the account', () => {
  it('ends the app\'s tokens and the browser\'s session the moment the mailed link confirms the deletion', async () => {
    const rp = await op.register({ name: 'Mobile app', public: true, firstParty: true })
    const browser = new Browser(op.url)
    const email = await signUp(browser)
    const tokens = await codeFlow(op, rp, browser, OFFLINE)
    expect(tokens.refresh_token).toBeTruthy()
    expect((await introspect(op, rp, tokens.access_token)).active).toBe(true)

    const asked = await browser.post('/api/auth/delete-account')
    expect(asked.status, await asked.clone().text()).toBe(202)
    expect(await asked.json()).toMatchObject({ ok: true, data: { sentTo: expect.stringMatching(/^r\*\*\*@example\.com$/) } })
    // the request alone changes nothing
    expect((await introspect(op, rp, tokens.access_token)).active).toBe(true)

    const link = linkQueryOf(await mailTo(op.smtp, email, '/auth/delete-account?'))
    const confirmed = await browser.post(`/api/auth/delete-account/confirm${link}`)
    expect(confirmed.status, await confirmed.clone().text()).toBe(200)
    expect(browser.cookies.has('session')).toBe(false)
    const session = (await (await browser.fetch('/api/auth/session')).json()) as { authenticated: boolean }
    expect(session.authenticated).toBe(false)

    expect((await introspect(op, rp, tokens.access_token)).active).toBe(false)
    expect(await refreshError(rp, tokens.refresh_token!)).toBe('invalid_grant')
  })
})
