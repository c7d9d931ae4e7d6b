/**
 * The email change waiting for its confirmation link, on the account page: where the link went,
 * a way to mail it again (a lost or filtered mail is no dead end) and a way to cancel it.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { describe, expect, it, vi } from 'vitest'
import PendingEmailChange from '../../components/PendingEmailChange.vue'
import { answer } from './bff'

const waiting = { ok: true, data: { pending: { sentTo: 'n***@example.com', expiresAt: '2026-01-02T03:04:05.000Z' } } }

async function mounted() {
  const component = await mountSuspended(PendingEmailChange, { props: { refresh: 0 } })
  await vi.waitFor(() => expect(component.text()).toContain('n***@example.com'))
  return component
}

const button = (component: Awaited<ReturnType<typeof mounted>>, name: string) => component.findAll('button').find((b) => b.text() === name)!

describe('a waiting email change', () => {
  it('mails the link again on request and says where the new one went', async () => {
    answer('GET', '/api/auth/email/pending', 200, waiting)
    const resent = answer('POST', '/api/auth/email/resend', 200, { ok: true, data: { sentTo: 'n***@example.com' } })
    const component = await mounted()
    await button(component, 'Send the link again').trigger('click')
    await vi.waitFor(() => expect(component.find('[data-testid="email-change-resent"]').text()).toBe('We sent a new link to n***@example.com. The earlier one no longer works.'))
    expect(resent.bodies).toHaveLength(1)
  })

  it('shows the sentence of a refused resend', async () => {
    answer('GET', '/api/auth/email/pending', 200, waiting)
    answer('POST', '/api/auth/email/resend', 429, { ok: false, error: 'Too many requests', code: 'rate_limited', retry: 60 })
    const component = await mounted()
    await button(component, 'Send the link again').trigger('click')
    await vi.waitFor(() => expect(component.find('[role="alert"]').exists()).toBe(true))
    expect(component.find('[data-testid="email-change-resent"]').exists()).toBe(false)
  })
})
