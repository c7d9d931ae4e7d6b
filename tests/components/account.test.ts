/**
 * The account console (pages/account/**) and its sections (password change, sessions, two-step
 * sign-in, passkeys, security activity, email change): its navigation, each section's pending state
 * and the banner for the answers it maps. Every test starts from a signed-in account whose BFF
 * routes answer like the gateway's; a test replaces the one route it is about (the latest
 * registration answers).
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import OverviewPage from '../../pages/account/index.vue'
import SecurityPage from '../../pages/account/security.vue'
import SessionsPage from '../../pages/account/sessions.vue'
import AppsPage from '../../pages/account/apps.vue'
import DataPage from '../../pages/account/data.vue'
import SignupPage from '../../pages/signup.vue'
import { formatWhen } from '../../composables/format-when'
import { answer, held } from './bff'

const NOW = '2026-01-02T03:04:05.000Z'
const session = (id: string, current: boolean, browser: string) => ({
  id,
  current,
  browser,
  os: 'Linux',
  ipAddress: '203.0.113.7',
  country: null,
  createdAt: NOW,
  lastSeenAt: NOW,
})

beforeEach(() => {
  answer('GET', '/api/auth/session', 200, { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, name: 'Ada', roles: [] })
  answer('GET', '/api/auth/totp', 200, { ok: true, data: { enabled: false, recoveryCodesLeft: 0 } })
  answer('GET', '/api/auth/passkeys', 200, { ok: true, data: { passkeys: [] } })
  answer('GET', '/api/auth/sessions', 200, { ok: true, data: { sessions: [session('s-1', true, 'Firefox'), session('s-2', false, 'Chrome')] } })
  answer('GET', '/api/auth/sign-in-methods', 200, { ok: true, data: { password: true, totp: false, passkeys: 0, providers: [] } })
  answer('GET', '/api/auth/security-events', 200, { ok: true, data: { events: [{ id: 1, type: 'login_succeeded', createdAt: NOW, ipAddress: '203.0.113.7' }] } })
})

/** Each part of the account console: its page, its path, and a heading that shows once the part is signed in. */
const PARTS = {
  overview: [OverviewPage, '/account', 'email-heading'],
  security: [SecurityPage, '/account/security', 'two-step-heading'],
  sessions: [SessionsPage, '/account/sessions', 'sessions-heading'],
  apps: [AppsPage, '/account/apps', 'connected-apps-heading'],
  data: [DataPage, '/account/data', 'your-data-heading'],
} as const
type Part = keyof typeof PARTS

async function account(part: Part = 'overview') {
  const [component, route, heading] = PARTS[part]
  // attached to the document: the confirmations move focus, which a detached tree cannot hold
  const page = await mountSuspended(component, { route, attachTo: document.body })
  await vi.waitFor(() => expect(page.find(`#${heading}`).exists()).toBe(true))
  return page
}
type Page = Awaited<ReturnType<typeof account>>
const section = (page: Page, heading: string) => page.find(`section[aria-labelledby="${heading}"]`)
const changeEmailButton = (page: Page) => section(page, 'email-heading').findAll('button').find((b) => b.text() === 'Change email')!

describe('account page', () => {
  it('shows the signed-in account from the session, never asking for a token, and never its internal id', async () => {
    const page = await account()
    await vi.waitFor(() => expect(page.find('dl').text()).toContain('ada@example.com'))
    expect(page.text()).not.toContain('u-1')
    expect(page.text()).not.toContain('Account number')
    expect(page.text()).not.toContain('(not confirmed yet)')
  })

  it('shows the MFA notice while the session waits for the emailed confirmation', async () => {
    answer('GET', '/api/auth/session', 200, { authenticated: false, mfa: true, message: 'Open the link we mailed you.' })
    const page = await mountSuspended(OverviewPage, { route: '/account' })
    await vi.waitFor(() => expect(page.find('.alert.info').text()).toBe('Open the link we mailed you.'))
  })

  it('sends a browser whose session ended to the sign-in page with the reason', async () => {
    answer('GET', '/api/auth/session', 200, { authenticated: false, ended: true })
    await mountSuspended(OverviewPage, { route: '/account' })
    const router = useRouter()
    // the navigation follows the session read and the page's own mount: patient on a loaded runner
    await vi.waitFor(() => expect(router.currentRoute.value.fullPath).toBe('/login?returnTo=/account&ended=1'), { timeout: 10_000 })
  })

  describe('email address', () => {
    it('names the masked address the confirmation link went to', async () => {
      answer('POST', '/api/auth/custom-mfa/change_email', 200, { ok: true, data: { sentTo: 'a***@example.com' } })
      const page = await account()
      await changeEmailButton(page).trigger('click')
      await vi.waitFor(() =>
        expect(page.find('.alert.success').text()).toBe('We sent a confirmation link to a***@example.com. Open it on this device to choose the new address.'),
      )
    })

    it.each([
      [429, { ok: false, retry: 20 }, 'Too many attempts. Try again in 20 seconds.'],
      [401, { ok: false, signedOut: true }, 'Your session has ended. Please sign in again.'],
    ])('shows the banner when starting the change gets %i', async (status, body, message) => {
      answer('POST', '/api/auth/custom-mfa/change_email', status, body)
      const page = await account()
      await changeEmailButton(page).trigger('click')
      await vi.waitFor(() => expect(page.find('.alert[role="alert"]').text()).toBe(message))
    })

    it('offers the verification link again for an unconfirmed address, disabled while it is sent', async () => {
      answer('GET', '/api/auth/session', 200, { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: false, roles: [] })
      const { gate, release } = held()
      answer('POST', '/api/auth/resend-verification', 200, { ok: true }, gate)
      const page = await account()
      // the auth state is shared across mounts (useState): wait for this test's session
      await vi.waitFor(() => expect(page.text()).toContain('(not confirmed yet)'))
      const resend = section(page, 'email-heading').find('button')
      expect(resend.text()).toBe('Send the link again')
      await resend.trigger('click')
      await vi.waitFor(() => expect(resend.attributes('disabled')).toBeDefined())
      release()
      await vi.waitFor(() => expect(page.find('.alert.success').text()).toBe('We sent a new confirmation link to your email address.'))
    })
  })

  describe('email change finished with two-step sign-in', () => {
    async function started() {
      answer('GET', '/api/auth/totp', 200, { ok: true, data: { enabled: true, recoveryCodesLeft: 10 } })
      answer('POST', '/api/auth/custom-mfa/change_email', 200, { ok: true, data: { sentTo: 'a***@example.com' } })
      const page = await account()
      await changeEmailButton(page).trigger('click')
      await vi.waitFor(() => expect(page.find('form[aria-labelledby="email-2fa-heading"]').exists()).toBe(true))
      return page.find('form[aria-labelledby="email-2fa-heading"]')
    }

    it('asks for a valid new address and a code before posting', async () => {
      const posted = answer('POST', '/api/auth/email/second-factor', 200, { ok: true })
      const form = await started()
      await form.find('input#email-2fa-new').setValue('ada@')
      await form.trigger('submit')
      expect(form.find('#email-2fa-new-error').text()).toBe('Enter an email address like name@example.com.')
      expect(form.find('#email-2fa-code-error').text()).toBe('Enter a code from your authenticator app or a recovery code.')
      expect(posted.bodies).toEqual([])
    })

    it('disables the button while pending and explains a wrong code (401) beside the field', async () => {
      const { gate, release } = held()
      const posted = answer('POST', '/api/auth/email/second-factor', 401, { ok: false }, gate)
      const form = await started()
      await form.find('input#email-2fa-new').setValue(' new@example.com ')
      await form.find('input#email-2fa-code').setValue('123456')
      await form.trigger('submit')
      await vi.waitFor(() => expect(form.find('button[type="submit"]').attributes('disabled')).toBeDefined())
      release()
      await vi.waitFor(() => expect(form.find('#email-2fa-code-error').text()).toBe('That code is not valid.'))
      expect(posted.bodies).toEqual([{ newEmail: 'new@example.com', code: '123456' }])
    })

    it('says the code entry is locked and when to try again (429), from the code and not the IAM sentence', async () => {
      const lock = 'Too many wrong codes: code entry is locked for now. Try again in 14 minutes.'
      answer('POST', '/api/auth/email/second-factor', 429, {
        ok: false,
        error: 'Too many requests',
        code: 'code_entry_locked',
        retry: 840,
        message: 'Too many wrong codes for this account. Code entry is locked; try again in 14 minutes.',
      })
      const form = await started()
      await form.find('input#email-2fa-new').setValue('new@example.com')
      await form.find('input#email-2fa-code').setValue('123456')
      await form.trigger('submit')
      await vi.waitFor(() => expect(form.find('.alert[role="alert"]').text()).toBe(lock))
    })

    it('shows the banner for a 409 answer (the address is taken)', async () => {
      answer('POST', '/api/auth/email/second-factor', 409, { ok: false, error: 'That address belongs to another account.' })
      const form = await started()
      await form.find('input#email-2fa-new').setValue('new@example.com')
      await form.find('input#email-2fa-code').setValue('123456')
      await form.trigger('submit')
      await vi.waitFor(() => expect(form.find('.alert[role="alert"]').text()).toBe('That address belongs to another account.'))
    })
  })

  describe('password change', () => {
    async function change(page: Page) {
      // the form shows once the sign-in methods say the account has a password
      await vi.waitFor(() => expect(page.find('input#current-password').exists()).toBe(true))
      const form = section(page, 'password-heading')
      await form.find('input#current-password').setValue('old password 123')
      await form.find('input#new-password').setValue('a brand new passphrase')
      await form.find('input#confirm-new-password').setValue('a brand new passphrase')
      await form.find('form').trigger('submit')
      return form
    }

    it('disables the button while pending, then says every other session was signed out', async () => {
      const { gate, release } = held()
      const posted = answer('POST', '/api/auth/change-password', 200, { ok: true }, gate)
      const page = await account('security')
      const form = await change(page)
      await vi.waitFor(() => expect(form.find('button[type="submit"]').attributes('disabled')).toBeDefined())
      release()
      await vi.waitFor(() => expect(form.find('.alert.success').text()).toBe('Your password was changed. Every other session was signed out.'))
      expect(posted.bodies).toEqual([{ currentPassword: 'old password 123', password: 'a brand new passphrase', confirmedPassword: 'a brand new passphrase' }])
      expect((form.find('input#current-password').element as HTMLInputElement).value).toBe('')
    })

    it("puts a 400 answer's messages beside their fields", async () => {
      answer('POST', '/api/auth/change-password', 400, { ok: false, error: 'Invalid input', fields: { password: 'Use at least 12 characters.' } })
      const page = await account('security')
      const form = await change(page)
      await vi.waitFor(() => expect(form.find('#new-password-error').text()).toBe('Use at least 12 characters.'))
    })

    it.each([
      [401, { ok: false, error: 'The current password is incorrect.' }, 'The current password is incorrect.'],
      [429, { ok: false, retry: 2 }, 'Too many attempts. Try again in 2 seconds.'],
      [500, {}, 'Something went wrong on our side. Please try again.'],
    ])('shows the banner for a %i answer', async (status, body, message) => {
      answer('POST', '/api/auth/change-password', status, body)
      const page = await account('security')
      const form = await change(page)
      await vi.waitFor(() => expect(form.find('.alert[role="alert"]').text()).toBe(message))
    })
  })

  describe('sessions', () => {
    async function sessionsOf(page: Page) {
      const sessions = section(page, 'sessions-heading')
      await vi.waitFor(() => expect(sessions.findAll('li')).toHaveLength(2))
      return sessions
    }

    it('marks this device and offers to end only the others', async () => {
      const page = await account('sessions')
      const sessions = await sessionsOf(page)
      expect(sessions.find('li[aria-current="true"]').text()).toContain('This device')
      expect(sessions.findAll('li button').map((b) => b.attributes('aria-label'))).toEqual([expect.stringContaining('End session: Chrome on Linux')])
    })

    it('asks "Sign out <device>?" in place and ends nothing until Confirm', async () => {
      const revoked = answer('POST', '/api/auth/sessions/revoke', 200, { ok: true })
      const page = await account('sessions')
      const sessions = await sessionsOf(page)
      await sessions.find('li button').trigger('click')
      const confirm = sessions.find('[role="group"]')
      expect(document.getElementById(confirm.attributes('aria-labelledby')!)?.textContent).toBe('Sign out Chrome on Linux?')
      // focus on Cancel: a second Enter right after the click keeps the session
      expect(document.activeElement?.textContent?.trim()).toBe('Cancel')
      expect(revoked.bodies).toEqual([])
      await confirm.findAll('button').find((b) => b.text() === 'Confirm')!.trigger('click')
      await vi.waitFor(() => expect(sessions.find('.alert.success').text()).toBe('The session of Chrome on Linux was ended.'))
      expect(revoked.bodies).toEqual([{ id: 's-2' }])
      // focus moves once the list has loaded again, after the notice shows
      await vi.waitFor(() => expect(document.activeElement?.id).toBe('sessions-heading'))
    })

    it.each([
      ['Cancel', (confirm: ReturnType<Page['find']>) => confirm.findAll('button').find((b) => b.text() === 'Cancel')!.trigger('click')],
      ['Escape', (confirm: ReturnType<Page['find']>) => confirm.trigger('keydown', { key: 'Escape' })],
    ])('keeps the session on %s and puts focus back on its "End session" button', async (_, dismiss) => {
      const revoked = answer('POST', '/api/auth/sessions/revoke', 200, { ok: true })
      const page = await account('sessions')
      const sessions = await sessionsOf(page)
      await sessions.find('li button').trigger('click')
      await dismiss(sessions.find('[role="group"]'))
      await vi.waitFor(() => expect(sessions.find('[role="group"]').exists()).toBe(false))
      await vi.waitFor(() => expect(document.activeElement?.getAttribute('aria-label')).toMatch(/^End session: Chrome on Linux/))
      expect(revoked.bodies).toEqual([])
    })

    it('says a session that had already ended (404) instead of a generic error', async () => {
      answer('POST', '/api/auth/sessions/revoke', 404, { ok: false, error: 'Not found' })
      const page = await account('sessions')
      const sessions = await sessionsOf(page)
      await sessions.find('li button').trigger('click')
      await sessions.findAll('[role="group"] button').find((b) => b.text() === 'Confirm')!.trigger('click')
      await vi.waitFor(() => expect(sessions.find('.alert[role="alert"]').text()).toBe('That session had already ended.'))
    })

    it('asks before "end all other sessions", then counts the sessions it ended', async () => {
      const revoked = answer('POST', '/api/auth/sessions/revoke-others', 200, { ok: true, data: { revoked: 1 } })
      const page = await account('sessions')
      const sessions = await sessionsOf(page)
      await sessions.find('#sessions-end-others').trigger('click')
      const confirm = sessions.find('#sessions-others-confirm')
      expect(document.getElementById(confirm.attributes('aria-labelledby')!)?.textContent).toBe('Sign out of the 1 other session?')
      expect(document.activeElement?.textContent?.trim()).toBe('Cancel')
      expect(revoked.bodies).toEqual([])
      await confirm.findAll('button').find((b) => b.text() === 'Confirm')!.trigger('click')
      await vi.waitFor(() => expect(sessions.find('.alert.success').text()).toBe('1 other session was ended.'))
      expect(revoked.bodies).toHaveLength(1)
    })

    it('keeps every other session when "end all other sessions" is cancelled, with focus back on its button', async () => {
      const revoked = answer('POST', '/api/auth/sessions/revoke-others', 200, { ok: true, data: { revoked: 1 } })
      const page = await account('sessions')
      const sessions = await sessionsOf(page)
      await sessions.find('#sessions-end-others').trigger('click')
      await sessions.findAll('#sessions-others-confirm button').find((b) => b.text() === 'Cancel')!.trigger('click')
      await vi.waitFor(() => expect(document.activeElement?.id).toBe('sessions-end-others'))
      expect(sessions.find('#sessions-others-confirm').exists()).toBe(false)
      expect(revoked.bodies).toEqual([])
    })

    it('shows the banner when the list cannot be loaded', async () => {
      answer('GET', '/api/auth/sessions', 429, { ok: false, retry: 4 })
      const page = await mountSuspended(SessionsPage, { route: '/account/sessions' })
      await vi.waitFor(() => expect(section(page, 'sessions-heading').find('.alert[role="alert"]').text()).toBe('Too many attempts. Try again in 4 seconds.'))
    })
  })

  describe('two-step sign-in', () => {
    async function started(page: Page) {
      answer('POST', '/api/auth/totp/setup', 200, { ok: true, data: { secret: 'JBSWY3DPEHPK3PXP', otpauthUrl: 'otpauth://totp/Id:ada?secret=JBSWY3DPEHPK3PXP' } })
      const totp = section(page, 'two-step-heading')
      await vi.waitFor(() => expect(totp.find('button').text()).toBe('Set up two-step sign-in'))
      await totp.find('button').trigger('click')
      await vi.waitFor(() => expect(totp.find('[data-testid="totp-secret"]').text()).toBe('JBSW Y3DP EHPK 3PXP'))
      return totp
    }

    it('asks for a 6-digit code before turning it on', async () => {
      const enable = answer('POST', '/api/auth/totp/enable', 200, { ok: true, data: { recoveryCodes: [] } })
      const page = await account('security')
      const totp = await started(page)
      await totp.find('input#totp-enable-code').setValue('12345')
      await totp.find('form').trigger('submit')
      await vi.waitFor(() => expect(totp.find('#totp-enable-code-error').text()).toBe('Enter the 6-digit code from your authenticator app.'))
      expect(enable.bodies).toEqual([])
    })

    it('explains a refused code (400) and shows the recovery codes once a code is accepted', async () => {
      const page = await account('security')
      const totp = await started(page)
      answer('POST', '/api/auth/totp/enable', 400, { ok: false, error: 'Invalid code' })
      await totp.find('input#totp-enable-code').setValue('123456')
      await totp.find('form').trigger('submit')
      await vi.waitFor(() => expect(totp.find('#totp-enable-code-error').text()).toBe('That code is not valid. Check the time on your device and try the newest code.'))
      answer('POST', '/api/auth/totp/enable', 200, { ok: true, data: { recoveryCodes: ['aaaa-bbbb', 'cccc-dddd'] } })
      await totp.find('form').trigger('submit')
      await vi.waitFor(() => expect(totp.find('[data-testid="recovery-codes"]').text()).toContain('cccc-dddd'))
    })

    it('asks for a code before turning it off, and explains a refused one', async () => {
      answer('GET', '/api/auth/totp', 200, { ok: true, data: { enabled: true, recoveryCodesLeft: 1 } })
      answer('POST', '/api/auth/totp/disable', 400, { ok: false })
      const page = await account('security')
      const totp = section(page, 'two-step-heading')
      await vi.waitFor(() => expect(totp.text()).toContain('1 recovery code left.'))
      await totp.find('form').trigger('submit')
      expect(totp.find('#totp-disable-code-error').text()).toBe('Enter a code from your authenticator app or a recovery code.')
      await totp.find('input#totp-disable-code').setValue('123456')
      await totp.find('form').trigger('submit')
      await vi.waitFor(() => expect(totp.find('#totp-disable-code-error').text()).toBe('That code is not valid.'))
    })

    describe('new recovery codes', () => {
      const NEW_CODES = Array.from({ length: 10 }, (_, i) => `NEW${i}-AAAA-BBBB-CCCC`)

      async function askForNewCodes() {
        answer('GET', '/api/auth/totp', 200, { ok: true, data: { enabled: true, recoveryCodesLeft: 2 } })
        const page = await account('security')
        const totp = section(page, 'two-step-heading')
        await vi.waitFor(() => expect(totp.text()).toContain('2 recovery codes left.'))
        const open = totp.findAll('button').find((b) => b.text() === 'Make new recovery codes')!
        await open.trigger('click')
        const confirm = totp.find('#recovery-codes-confirm')
        return { totp, confirm, button: (text: string) => confirm.findAll('button').find((b) => b.text() === text)! }
      }

      it('asks in place, then shows the 10 new codes once confirmed and counts them', async () => {
        const made = answer('POST', '/api/auth/totp/recovery-codes', 200, { ok: true, date: NOW, data: { recoveryCodes: NEW_CODES } })
        const { totp, confirm, button } = await askForNewCodes()
        expect(document.getElementById(confirm.attributes('aria-labelledby')!)?.textContent).toBe('Make 10 new recovery codes? The ones you have stop working.')
        expect(document.activeElement?.textContent?.trim()).toBe('Cancel')
        expect(made.bodies).toEqual([])
        await button('Confirm').trigger('click')
        await vi.waitFor(() => expect(totp.findAll('[data-testid="recovery-codes"] li')).toHaveLength(10))
        expect(made.bodies).toHaveLength(1)
        expect(totp.find('[data-testid="recovery-codes"]').text()).toContain('NEW9-AAAA-BBBB-CCCC')
        expect(totp.text()).toContain('Your earlier recovery codes no longer work.')
        await totp.findAll('button').find((b) => b.text() === 'I saved my recovery codes')!.trigger('click')
        await vi.waitFor(() => expect(totp.text()).toContain('10 recovery codes left.'))
        expect(totp.find('.alert.success').text()).toBe('New recovery codes saved. The old ones no longer work.')
        expect(totp.find('[data-testid="recovery-codes"]').exists()).toBe(false)
      })

      it('calls nothing on Cancel and puts focus back on the button', async () => {
        const made = answer('POST', '/api/auth/totp/recovery-codes', 200, { ok: true, date: NOW, data: { recoveryCodes: NEW_CODES } })
        const { totp, button } = await askForNewCodes()
        await button('Cancel').trigger('click')
        await vi.waitFor(() => expect(document.activeElement?.textContent?.trim()).toBe('Make new recovery codes'))
        expect(totp.find('#recovery-codes-confirm').exists()).toBe(false)
        expect(totp.text()).toContain('2 recovery codes left.')
        expect(made.bodies).toEqual([])
      })

      it('asks to confirm it is you when the sign-in is old, then makes the codes', async () => {
        answer('POST', '/api/auth/totp/recovery-codes', 403, { ok: false, error: 'Re-authentication required', reauthenticate: true })
        const { totp, button } = await askForNewCodes()
        await button('Confirm').trigger('click')
        await vi.waitFor(() => expect(totp.find('#two-step-reauth-password').exists()).toBe(true))
        const proof = answer('POST', '/api/auth/reauthenticate', 200, { ok: true, data: { method: 'password', reauthenticatedUntil: NOW } })
        const made = answer('POST', '/api/auth/totp/recovery-codes', 200, { ok: true, date: NOW, data: { recoveryCodes: NEW_CODES } })
        await totp.find('#two-step-reauth-password').setValue('my long passphrase')
        await totp.find('.reauth form').trigger('submit')
        await vi.waitFor(() => expect(proof.bodies).toEqual([{ password: 'my long passphrase' }]))
        await vi.waitFor(() => expect(made.bodies).toHaveLength(1))
        await vi.waitFor(() => expect(totp.findAll('[data-testid="recovery-codes"] li')).toHaveLength(10))
      })
    })
  })

  describe('passkeys', () => {
    it('shows the banner when the list cannot be loaded', async () => {
      answer('GET', '/api/auth/passkeys', 503, {})
      const page = await account('security')
      await vi.waitFor(() => expect(section(page, 'passkeys-heading').find('.alert[role="alert"]').text()).toBe('Something went wrong on our side. Please try again.'))
    })

    async function askToRemove() {
      answer('GET', '/api/auth/passkeys', 200, { ok: true, data: { passkeys: [{ id: 7, name: 'Laptop', createdAt: NOW, lastUsedAt: null, backedUp: false }] } })
      const removed = answer('POST', '/api/auth/passkeys/delete', 200, { ok: true })
      const page = await account('security')
      const passkeys = section(page, 'passkeys-heading')
      await vi.waitFor(() => expect(passkeys.find('button[aria-label="Remove passkey Laptop"]').exists()).toBe(true))
      await passkeys.find('button[aria-label="Remove passkey Laptop"]').trigger('click')
      const confirm = passkeys.find('[role="group"]')
      return { passkeys, confirm, removed, button: (text: string) => confirm.findAll('button').find((b) => b.text() === text)! }
    }

    it('asks "Remove passkey <name>?" in place and removes it only on Confirm', async () => {
      const { passkeys, confirm, removed, button } = await askToRemove()
      expect(document.getElementById(confirm.attributes('aria-labelledby')!)?.textContent).toBe('Remove passkey Laptop?')
      expect(document.activeElement?.textContent?.trim()).toBe('Cancel')
      expect(removed.bodies).toEqual([])
      await button('Confirm').trigger('click')
      await vi.waitFor(() => expect(passkeys.find('.alert.success').text()).toBe('Passkey “Laptop” removed.'))
      expect(removed.bodies).toEqual([{ id: 7 }])
    })

    it('keeps the passkey on Cancel and puts focus back on its "Remove" button', async () => {
      const { passkeys, removed, button } = await askToRemove()
      await button('Cancel').trigger('click')
      await vi.waitFor(() => expect(document.activeElement?.getAttribute('aria-label')).toBe('Remove passkey Laptop'))
      expect(passkeys.find('[role="group"]').exists()).toBe(false)
      expect(removed.bodies).toEqual([])
    })
  })

  describe('the console navigation', () => {
    const nav = (page: Page) => page.find('nav[aria-label="Account sections"]')

    it.each([
      ['overview', 'Overview'],
      ['security', 'Security'],
      ['sessions', 'Sessions'],
      ['apps', 'Apps'],
      ['data', 'Your data'],
    ] as const)('links to every part in the console order and marks %s as the current page', async (part, label) => {
      const page = await account(part)
      const links = nav(page).findAll('a')
      expect(links.map((a) => [a.text(), a.attributes('href')])).toEqual([
        ['Overview', '/account'],
        ['Security', '/account/security'],
        ['Sessions', '/account/sessions'],
        ['Apps', '/account/apps'],
        ['Your data', '/account/data'],
      ])
      expect(links.filter((a) => a.attributes('aria-current') === 'page').map((a) => a.text())).toEqual([label])
    })

    it('holds each section on its part, under the heading it had on the single page', async () => {
      const headings = async (part: Part) => (await account(part)).findAll('h2').map((h) => h.text())
      expect(await headings('overview')).toEqual(['Personal info', 'Profile picture', 'Your account at a glance'])
      expect(await headings('security')).toEqual(['Signing in', 'Security activity'])
      expect(await headings('sessions')).toEqual(['Devices and sessions'])
      expect(await headings('apps')).toEqual(['Connected apps', 'API tokens'])
      expect(await headings('data')).toEqual(['Your data', 'Delete account'])
    })

    it('sums up the other parts on the overview with a link into each', async () => {
      const page = await account()
      const summary = section(page, 'summary-heading')
      expect(summary.findAll('a').map((a) => a.attributes('href'))).toEqual(['/account/security', '/account/sessions', '/account/apps', '/account/data'])
      await vi.waitFor(() => expect(summary.find('[data-testid="two-step-state"]').text()).toBe('Two-step sign-in is off: turn it on under Security.'))
    })

    it.each([
      ['#devices', '/account/sessions#devices'],
      ['#signing-in', '/account/security#signing-in'],
      ['#security-activity', '/account/security#security-activity'],
      ['#connected-apps', '/account/apps#connected-apps'],
      ['#api-tokens', '/account/apps#api-tokens'],
      ['#your-data', '/account/data#your-data'],
    ])('sends an old link to /account%s on to the part that holds the section now', async (hash, target) => {
      await mountSuspended(OverviewPage, { route: `/account${hash}` })
      // a navigation after the mount: on a loaded machine more than waitFor's default second
      await vi.waitFor(() => expect(useRouter().currentRoute.value.fullPath).toBe(target), { timeout: 10_000 })
    })

    it('sends an old section link opened while the overview is open on to its part', async () => {
      await account()
      await useRouter().push('/account#connected-apps')
      await vi.waitFor(() => expect(useRouter().currentRoute.value.fullPath).toBe('/account/apps#connected-apps'), { timeout: 10_000 })
    })

    it('keeps a link to a section of the overview on the overview', async () => {
      const page = await mountSuspended(OverviewPage, { route: '/account#personal-info' })
      await vi.waitFor(() => expect(page.find('#email-heading').exists()).toBe(true))
      expect(useRouter().currentRoute.value.fullPath).toBe('/account#personal-info')
    })

    it('sends a signed-out browser to the sign-in page, which comes back to the same part', async () => {
      answer('GET', '/api/auth/session', 200, { authenticated: false })
      await mountSuspended(SecurityPage, { route: '/account/security' })
      await vi.waitFor(() => expect(useRouter().currentRoute.value.fullPath).toBe('/login?returnTo=/account/security'), { timeout: 10_000 })
    })
  })

  describe('an account without a password', () => {
    const providerOnly = (extra: Record<string, unknown> = {}) => {
      answer('GET', '/api/auth/sign-in-methods', 200, {
        ok: true,
        data: { password: false, totp: false, passkeys: 0, providers: ['google'], linked: [{ provider: 'google', email: 'ada@gmail.example', linkedAt: NOW }], ...extra },
      })
      answer('GET', '/api/auth/providers', 200, { providers: [{ name: 'google', displayName: 'Google', href: '/oauth/google' }] })
    }

    it('offers "Set a password" without a current password to an account that signs in with a provider, and names the provider', async () => {
      providerOnly()
      const page = await account('security')
      const password = section(page, 'password-heading')
      await vi.waitFor(() =>
        expect(password.find('[data-testid="no-password"]').text()).toBe(
          'You sign in with Google. Your account has no password yet: set one to sign in with your email address too, for example when Google is unavailable.',
        ),
      )
      expect(password.find('h3').text()).toBe('Set a password')
      expect(page.find('input#current-password').exists()).toBe(false)
      expect(password.find('input#first-password').attributes('autocomplete')).toBe('new-password')
      expect(password.find('#first-password-strength').exists()).toBe(true)
      expect(page.text()).not.toContain('Change password')
    })

    it('sets the first password, says so, and then shows the change form', async () => {
      providerOnly()
      const set = answer('POST', '/api/auth/set-password', 200, { ok: true, data: { password: true } })
      const page = await account('security')
      const password = section(page, 'password-heading')
      await vi.waitFor(() => expect(password.find('input#first-password').exists()).toBe(true))
      await password.find('input#first-password').setValue('a first passphrase of my own')
      await password.find('input#confirm-first-password').setValue('a first passphrase of my own')
      answer('GET', '/api/auth/sign-in-methods', 200, { ok: true, data: { password: true, totp: false, passkeys: 0, providers: ['google'], linked: [] } })
      await password.find('form').trigger('submit')
      await vi.waitFor(() => expect(set.bodies).toEqual([{ password: 'a first passphrase of my own', confirmedPassword: 'a first passphrase of my own' }]))
      await vi.waitFor(() => expect(page.find('input#current-password').exists()).toBe(true))
      expect(section(page, 'signing-in-heading').find('.alert.success').text()).toBe(
        'Your password is set. You can now sign in with your email address and this password too.',
      )
    })

    it('asks to confirm it is you with a code (the account has no password) when the sign-in is old, then sets the password it was given', async () => {
      providerOnly()
      answer('POST', '/api/auth/set-password', 403, { ok: false, error: 'Re-authentication required', reauthenticate: true })
      const page = await account('security')
      const password = section(page, 'password-heading')
      await vi.waitFor(() => expect(password.find('input#first-password').exists()).toBe(true))
      await password.find('input#first-password').setValue('a first passphrase of my own')
      await password.find('input#confirm-first-password').setValue('a first passphrase of my own')
      await password.find('form').trigger('submit')
      await vi.waitFor(() => expect(password.find('#set-password-reauth-code').exists()).toBe(true))
      expect(password.find('#set-password-reauth-password').exists()).toBe(false)
      const proof = answer('POST', '/api/auth/reauthenticate', 200, { ok: true, data: { method: 'emailed_code', reauthenticatedUntil: NOW } })
      const set = answer('POST', '/api/auth/set-password', 200, { ok: true, data: { password: true } })
      answer('GET', '/api/auth/sign-in-methods', 200, { ok: true, data: { password: true, totp: false, passkeys: 0, providers: ['google'], linked: [] } })
      await password.find('#set-password-reauth-code').setValue('123456')
      await password.find('[role="group"] form').trigger('submit')
      await vi.waitFor(() => expect(proof.bodies).toEqual([{ code: '123456' }]))
      await vi.waitFor(() => expect(set.bodies).toEqual([{ password: 'a first passphrase of my own', confirmedPassword: 'a first passphrase of my own' }]))
      await vi.waitFor(() => expect(page.find('input#current-password').exists()).toBe(true))
    })

    it('shows the policy refusal at the field', async () => {
      providerOnly()
      answer('POST', '/api/auth/set-password', 400, { ok: false, error: 'Validation failed', fields: { password: 'Choose a password that is harder to guess' } })
      const page = await account('security')
      const password = section(page, 'password-heading')
      await vi.waitFor(() => expect(password.find('input#first-password').exists()).toBe(true))
      await password.find('form').trigger('submit')
      await vi.waitFor(() => expect(password.text()).toContain('Choose a password that is harder to guess'))
      expect(page.find('input#current-password').exists()).toBe(false)
    })

    it('offers an account with neither a password nor a provider to set one', async () => {
      answer('GET', '/api/auth/sign-in-methods', 200, { ok: true, data: { password: false, totp: false, passkeys: 1, providers: [], linked: [] } })
      const page = await account('security')
      const password = section(page, 'password-heading')
      await vi.waitFor(() => expect(password.find('[data-testid="no-password"]').text()).toBe('Your account has no password. Set one to sign in with your email address and password.'))
      expect(password.find('input#first-password').exists()).toBe(true)
      expect(page.find('input#current-password').exists()).toBe(false)
      expect(page.find('[data-testid="linked-accounts"]').exists()).toBe(false)
    })

    it('keeps the password form when the sign-in methods cannot be read (the IAM still refuses a change without one)', async () => {
      answer('GET', '/api/auth/sign-in-methods', 503, {})
      const page = await account('security')
      await vi.waitFor(() => expect(page.find('input#current-password').exists()).toBe(true))
    })
  })

  describe('linked accounts', () => {
    const methods = (data: Record<string, unknown>) => {
      answer('GET', '/api/auth/sign-in-methods', 200, { ok: true, data: { password: true, totp: false, passkeys: 0, providers: ['google'], ...data } })
      answer('GET', '/api/auth/providers', 200, {
        providers: [
          { name: 'google', displayName: 'Google', href: '/oauth/google' },
          { name: 'github', displayName: 'GitHub', href: '/oauth/github' },
        ],
      })
    }
    const GOOGLE = { provider: 'google', email: 'ada@gmail.example', linkedAt: NOW }
    const linked = (page: Page) => page.find('[data-testid="linked-accounts"]')

    it('lists each linked account by provider name, its address and when it was linked', async () => {
      methods({ linked: [GOOGLE] })
      const page = await account('security')
      await vi.waitFor(() => expect(linked(page).find('li').text()).toContain('Google'))
      const row = linked(page).find('li').text()
      expect(row).toContain('ada@gmail.example')
      expect(row).toContain(`linked ${formatWhen(NOW)}`)
      expect(linked(page).find('button[aria-label="Unlink Google"]').exists()).toBe(true)
    })

    it('unlinks after the in-place confirmation and says so', async () => {
      methods({ linked: [GOOGLE] })
      const unlinked = answer('POST', '/api/auth/linked-accounts/unlink', 200, { ok: true, data: { unlinked: true } })
      const page = await account('security')
      await vi.waitFor(() => expect(linked(page).find('button[aria-label="Unlink Google"]').exists()).toBe(true))
      await linked(page).find('button[aria-label="Unlink Google"]').trigger('click')
      const group = linked(page).find('[role="group"]')
      expect(group.text()).toContain('Unlink Google? It will no longer sign you in.')
      expect(unlinked.bodies).toEqual([])
      methods({ providers: [], linked: [] })
      await group.findAll('button').find((b) => b.text() === 'Confirm')!.trigger('click')
      await vi.waitFor(() => expect(unlinked.bodies).toEqual([{ provider: 'google' }]))
      await vi.waitFor(() => expect(linked(page).find('.alert.success').text()).toBe('Google is unlinked: it no longer signs you in to this account.'))
      await vi.waitFor(() => expect(linked(page).text()).toContain('No accounts are linked.'))
    })

    it('keeps the account linked on Cancel and puts focus back on its Unlink button', async () => {
      methods({ linked: [GOOGLE] })
      const unlinked = answer('POST', '/api/auth/linked-accounts/unlink', 200, { ok: true, data: { unlinked: true } })
      const page = await account('security')
      await vi.waitFor(() => expect(linked(page).find('button[aria-label="Unlink Google"]').exists()).toBe(true))
      await linked(page).find('button[aria-label="Unlink Google"]').trigger('click')
      await linked(page).find('[role="group"]').findAll('button').find((b) => b.text() === 'Cancel')!.trigger('click')
      await vi.waitFor(() => expect(document.activeElement?.getAttribute('aria-label')).toBe('Unlink Google'))
      expect(unlinked.bodies).toEqual([])
    })

    it('offers no Unlink for the only way in, and says why', async () => {
      methods({ password: false, passkeys: 0, linked: [GOOGLE] })
      const page = await account('security')
      await vi.waitFor(() => expect(linked(page).find('[data-testid="unlink-unavailable-google"]').exists()).toBe(true))
      expect(linked(page).find('[data-testid="unlink-unavailable-google"]').text()).toBe(
        'You cannot unlink Google: it is your only way to sign in. Set a password or add a passkey first.',
      )
      expect(linked(page).find('button[aria-label="Unlink Google"]').exists()).toBe(false)
    })

    it('offers Unlink without a password while a passkey or another provider remains', async () => {
      methods({ password: false, passkeys: 0, providers: ['github', 'google'], linked: [{ ...GOOGLE, provider: 'github' }, GOOGLE] })
      const page = await account('security')
      await vi.waitFor(() => expect(linked(page).findAll('button').map((b) => b.attributes('aria-label'))).toEqual(['Unlink GitHub', 'Unlink Google']))
    })

    it("shows the IAM's reason when it refuses the unlink as the last way in", async () => {
      methods({ linked: [GOOGLE] })
      answer('POST', '/api/auth/linked-accounts/unlink', 409, { ok: false, error: 'This is the only way to sign in to this account. Set a password or add a passkey first, then unlink it.' })
      const page = await account('security')
      await vi.waitFor(() => expect(linked(page).find('button[aria-label="Unlink Google"]').exists()).toBe(true))
      await linked(page).find('button[aria-label="Unlink Google"]').trigger('click')
      await linked(page).find('[role="group"]').findAll('button').find((b) => b.text() === 'Confirm')!.trigger('click')
      await vi.waitFor(() =>
        expect(linked(page).find('.alert[role="alert"]').text()).toBe('This is the only way to sign in to this account. Set a password or add a passkey first, then unlink it.'),
      )
    })
  })

  describe('security activity', () => {
    it('names each event for people', async () => {
      const page = await account('security')
      await vi.waitFor(() => expect(section(page, 'activity-heading').find('.what').text()).toBe('Signed in'))
    })

    it('shows the banner when the activity cannot be loaded', async () => {
      answer('GET', '/api/auth/security-events', 429, { ok: false })
      const page = await account('security')
      await vi.waitFor(() =>
        expect(section(page, 'activity-heading').find('.alert[role="alert"]').text()).toBe('Too many attempts from this network. Try again later or contact support.'),
      )
    })
  })
  describe('after a sign-up', () => {
    const INBOX = 'Check your inbox: we sent a link to a***@example.com to confirm your address. It keeps your account safe: until then you cannot add two-step sign-in or a passkey.'
    const unconfirmed = () =>
      answer('GET', '/api/auth/session', 200, { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: false, name: 'Ada', roles: [] })
    const inbox = (page: Page) => page.find('[data-testid="inbox-notice"]')

    it('says nothing about the inbox once the address is confirmed', async () => {
      const seen = answer('GET', '/api/auth/session', 200, { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, name: 'Ada', roles: [] })
      const page = await mountSuspended(OverviewPage, { route: '/account?signedUp=1' })
      // the auth state is shared across mounts (useState): wait for this test's confirmed session
      await vi.waitFor(() => expect(seen.bodies.length).toBeGreaterThan(0))
      await vi.waitFor(() => expect(page.find('dl').text()).not.toContain('(not confirmed yet)'))
      expect(page.find('dl').text()).toContain('ada@example.com')
      expect(inbox(page).exists()).toBe(false)
    })

    it('asks to confirm the masked address, with "Send the link again" beside it, on the page the sign-up lands on', async () => {
      unconfirmed()
      answer('POST', '/api/auth/signup', 201, { ok: true, signedIn: true })
      const signup = await mountSuspended(SignupPage, { route: '/signup' })
      await signup.find('input#name').setValue('Ada')
      await signup.find('input#email').setValue('ada@example.com')
      await signup.find('input#password').setValue('correct horse battery')
      await signup.find('input#confirmedPassword').setValue('correct horse battery')
      await signup.find('input#termsConsent').setValue(true)
      await signup.find('form').trigger('submit')
      await vi.waitFor(() => expect(useRouter().currentRoute.value.fullPath).toBe('/account'))
      const page = await account()
      await vi.waitFor(() => expect(inbox(page).find('p').text().replace(/\s+/g, ' ')).toBe(INBOX))
      expect(inbox(page).find('button').text()).toBe('Send the link again')
      // one "Send the link again" on the page: the email section's own line gives way to the notice
      expect(page.findAll('button').filter((b) => b.text() === 'Send the link again')).toHaveLength(1)
    })

    it('shows the notice once: a later visit of an unconfirmed account has only the quieter line', async () => {
      unconfirmed()
      useSignedUpFlash().value = true
      const first = await account()
      await vi.waitFor(() => expect(inbox(first).exists()).toBe(true))
      first.unmount()
      const again = await account()
      await vi.waitFor(() => expect(again.text()).toContain('(not confirmed yet)'))
      expect(inbox(again).exists()).toBe(false)
      expect(section(again, 'email-heading').text()).toContain('Your address is not confirmed yet')
    })

    it('shows the notice for the no-JS sign-up landing (?signedUp=1)', async () => {
      unconfirmed()
      const page = await mountSuspended(OverviewPage, { route: '/account?signedUp=1' })
      await vi.waitFor(() => expect(inbox(page).find('p').text().replace(/\s+/g, ' ')).toBe(INBOX))
    })

  })
})

describe('your data', () => {
  const downloadButton = (page: Page) => section(page, 'your-data-heading').findAll('button').find((b) => b.text() === 'Download your data')!

  it.each([
    [429, { ok: false, error: 'Too many requests', retry: 1800 }, 'Too many attempts. Try again in 30 minutes.'],
    [401, { ok: false, signedOut: true }, 'Your session has ended. Please sign in again.'],
    [503, { ok: false, error: 'The sign-in service is unavailable. Please try again in a moment.' }, 'Something went wrong on our side. Please try again.'],
  ])('says in words why the download did not start when the export answers %i', async (status, body, message) => {
    answer('GET', '/api/auth/export', status, body)
    const page = await account('data')
    await downloadButton(page).trigger('click')
    await vi.waitFor(() => expect(section(page, 'your-data-heading').find('.alert.error').text()).toBe(message))
  })

  it('asks to confirm it is you beside the button when the sign-in is old, and asks the export again once proven', async () => {
    const refused = answer('GET', '/api/auth/export', 403, { ok: false, error: 'Re-authentication required', reauthenticate: true })
    const page = await account('data')
    const data = section(page, 'your-data-heading')
    await downloadButton(page).trigger('click')
    await vi.waitFor(() => expect(data.find('#data-export-reauth-password').exists()).toBe(true))
    expect(data.text()).toContain('The download holds your sessions and security activity')
    const proof = answer('POST', '/api/auth/reauthenticate', 200, { ok: true, data: { method: 'password', reauthenticatedUntil: NOW } })
    const again = answer('GET', '/api/auth/export', 429, { ok: false, error: 'Too many requests', retry: 60 })
    await data.find('#data-export-reauth-password').setValue('my password')
    await data.find('[role="group"] form').trigger('submit')
    await vi.waitFor(() => expect(proof.bodies).toEqual([{ password: 'my password' }]))
    await vi.waitFor(() => expect(again.bodies).toHaveLength(1))
    expect(refused.bodies).toHaveLength(1)
    await vi.waitFor(() => expect(data.find('.alert.error').text()).toBe('Too many attempts. Try again in 1 minute.'))
    expect(data.find('#data-export-reauth-password').exists()).toBe(false)
  })
})
