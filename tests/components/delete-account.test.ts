/**
 * Account deletion's pages: the account page's "Delete account" section (components/DeleteAccount.vue)
 * and the two pages its mailed links land on. Each failure is a sentence, never raw JSON; the
 * request proves the sign-in again in place when the IAM asks.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { describe, expect, it, vi } from 'vitest'
import DeleteAccount from '../../components/DeleteAccount.vue'
import DeleteAccountPage from '../../pages/auth/delete-account.vue'
import UndoDeleteAccountPage from '../../pages/auth/undo-delete-account.vue'
import { answer } from './bff'

const query = (reason: string) => `token=t0k&random=r4nd&reason=${reason}&visitor=v1s`

describe('the account page\'s "Delete account" section', () => {
  async function start() {
    const section = await mountSuspended(DeleteAccount)
    await section.find('#delete-account-start').trigger('click')
    await section.find('#delete-account-confirm button.danger').trigger('click')
    return section
  }

  it('asks in place, then says to check the inbox at the masked address', async () => {
    const posted = answer('POST', '/api/auth/delete-account', 202, { ok: true, data: { sentTo: 'a***@example.com', expiresAt: '2026-11-27T10:15:00.000Z' } })
    const section = await mountSuspended(DeleteAccount)
    expect(section.text()).toContain('The account is erased 7 days later')
    await section.find('#delete-account-start').trigger('click')
    expect(posted.bodies).toEqual([])
    expect(section.find('#delete-account-confirm').text()).toContain('Delete your account?')
    await section.find('#delete-account-confirm button.danger').trigger('click')
    await vi.waitFor(() => expect(section.find('[data-testid="delete-account-sent"]').text()).toContain('Check your inbox. We sent a confirmation link to a***@example.com.'))
    expect(section.find('#delete-account-start').exists()).toBe(false)
  })

  it('names the organizations of a last owner, in the page language from the code and the names', async () => {
    const error = 'The IAM sentence, which the page does not show'
    const organizations = [
      { id: 'o1', slug: 'acme', name: 'Acme' },
      { id: 'o2', slug: 'globex', name: 'Globex' },
    ]
    answer('POST', '/api/auth/delete-account', 409, { ok: false, error, code: 'last_owner', organizations })
    const section = await start()
    await vi.waitFor(() =>
      expect(section.find('.alert[role="alert"]').text()).toBe(
        'You are the last owner of Acme and Globex: make another member an owner, or delete the organization, before deleting your account.',
      ),
    )
  })

  it('opens the re-authentication prompt in place when the sign-in is not recent, then asks again once proven', async () => {
    const asked = answer('POST', '/api/auth/delete-account', 403, { ok: false, error: 'Re-authentication required', reauthenticate: true })
    const section = await start()
    await vi.waitFor(() => expect(section.find('#delete-account-reauth-password').exists()).toBe(true))
    expect(section.find('.reauth').text()).toContain('This deletes your account, and your last sign-in was a while ago.')
    answer('POST', '/api/auth/reauthenticate', 200, { ok: true, data: { method: 'password', reauthenticatedUntil: '2026-11-27T10:15:00.000Z' } })
    answer('POST', '/api/auth/delete-account', 202, { ok: true, data: { sentTo: 'a***@example.com', expiresAt: '2026-11-27T10:15:00.000Z' } })
    await section.find('#delete-account-reauth-password').setValue('my long passphrase')
    await section.find('.reauth form').trigger('submit')
    await vi.waitFor(() => expect(section.find('[data-testid="delete-account-sent"]').exists()).toBe(true))
    expect(asked.bodies).toHaveLength(1)
  })

  it('explains a mail that could not be sent', async () => {
    answer('POST', '/api/auth/delete-account', 503, { ok: false, error: 'The confirmation mail could not be sent; try again later' })
    const section = await start()
    await vi.waitFor(() => expect(section.find('.alert[role="alert"]').text()).toBe('The confirmation mail could not be sent. Please try again in a few minutes.'))
  })
})

describe('the confirmation link page', () => {
  it('disables the account on Confirm and says when it is erased and how to restore it', async () => {
    answer('GET', '/api/auth/delete-account/confirm', 200, { ok: true })
    answer('POST', '/api/auth/delete-account/confirm', 200, { ok: true, data: { message: 'm', dueAt: '2026-12-04T10:00:00.000Z', undoMailed: true } })
    answer('GET', '/api/auth/session', 200, { authenticated: false })
    const page = await mountSuspended(DeleteAccountPage, { route: `/auth/delete-account?${query('DELETE_ACCOUNT')}` })
    await vi.waitFor(() => expect(page.find('button.danger').attributes('disabled')).toBeUndefined())
    await page.find('button.danger').trigger('click')
    await vi.waitFor(() => expect(page.find('h1').text()).toBe('Your account is disabled'))
    expect(page.find('[data-testid="account-disabled"]').text()).toContain('the link in the mail we just sent you restores it')
    expect(page.find('[data-testid="account-disabled"]').text()).toContain('will be erased on')
  })

  it('says an expired link is to be asked for again', async () => {
    answer('GET', '/api/auth/delete-account/confirm', 400, { ok: false, code: 'link_expired', error: 'This confirmation link has expired: ask for the deletion again from your account page' })
    const page = await mountSuspended(DeleteAccountPage, { route: `/auth/delete-account?${query('DELETE_ACCOUNT')}` })
    // the sentence of the code, in the page's language, with the way forward
    await vi.waitFor(() => expect(page.text()).toContain('This link has expired.'))
    expect(page.text()).toContain('ask again from your account page')
    expect(page.find('button.danger').exists()).toBe(false)
  })
})

describe('the undo link page', () => {
  it('restores the account and points to the sign-in', async () => {
    answer('GET', '/api/auth/undo-delete-account', 200, { ok: true })
    answer('POST', '/api/auth/undo-delete-account', 200, { ok: true, data: { message: 'm' } })
    const page = await mountSuspended(UndoDeleteAccountPage, { route: `/auth/undo-delete-account?${query('UNDO_DELETE_ACCOUNT')}` })
    await vi.waitFor(() => expect(page.find('button').attributes('disabled')).toBeUndefined())
    await page.find('button').trigger('click')
    await vi.waitFor(() => expect(page.find('h1').text()).toBe('Your account is restored'))
    expect(page.find('a[href="/login"]').exists()).toBe(true)
  })

  it('says in words that the 7 days have passed', async () => {
    const late = 'The time to undo the deletion has passed: the account is erased, or is about to be. You can sign up again with the same address.'
    answer('GET', '/api/auth/undo-delete-account', 410, { ok: false, error: late })
    const page = await mountSuspended(UndoDeleteAccountPage, { route: `/auth/undo-delete-account?${query('UNDO_DELETE_ACCOUNT')}` })
    await vi.waitFor(() => expect(page.find('.alert[role="alert"]').text()).toBe(late))
    expect(page.find('button').exists()).toBe(false)
  })
})
