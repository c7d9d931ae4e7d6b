/**
 * components/OrgSwitcher.vue, the account menu's organization switcher: when the list of the
 * person's organizations cannot be read it says so and offers "Try again", which reads it again.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { afterEach, describe, expect, it, vi } from 'vitest'
import OrgSwitcher from '../../components/OrgSwitcher.vue'
import { answer, answerInTurn } from './bff'

const ORGS = [{ id: '6f1c2d9e-0a1b-4c2d-8e3f-123456789abc', slug: 'acme', name: 'Acme', role: 'member', roleName: 'member' }]
const LISTED = { status: 200, body: { ok: true, data: { orgs: ORGS, active: null } } }
const BROKEN = { status: 502, body: { ok: false, error: 'Bad gateway' } }

const mounted: Array<{ unmount(): void }> = []
afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.unmount()
  clearNuxtState()
})
async function mount() {
  const wrapper = await mountSuspended(OrgSwitcher, { props: { open: true }, attachTo: document.body })
  mounted.push(wrapper)
  return wrapper
}
type Switcher = Awaited<ReturnType<typeof mount>>
const tryAgain = (page: Switcher) => page.findAll('button').find((b) => b.text() === 'Try again')

describe('organization switcher', () => {
  it('says the list could not be loaded and offers Try again, which reads it again and shows the organizations', async () => {
    const list = answerInTurn('GET', '/api/orgs', [BROKEN, LISTED])
    const page = await mount()
    await vi.waitFor(() => expect(page.find('[role="alert"]').exists()).toBe(true))
    expect(page.find('[role="alert"]').text()).toBe('Your organizations could not be loaded. Something went wrong on our side. Please try again.')
    expect(page.find('.choices').exists()).toBe(false)
    expect(tryAgain(page)).toBeDefined()

    await tryAgain(page)!.trigger('click')
    // the button goes with the failure: focus stays in the menu, on the switcher's heading
    expect(document.activeElement?.id).toBe('org-switcher-heading')
    await vi.waitFor(() => expect(page.findAll('.choices button')).toHaveLength(2))
    expect(list.bodies).toHaveLength(2)
    expect(page.find('[role="alert"]').exists()).toBe(false)
    expect(tryAgain(page)).toBeUndefined()
    expect(page.findAll('.choices button').map((b) => b.text().replace(/\s+/g, ' ').trim())).toEqual(['Personal (active)', 'Acme: switch to this organization'])
  })

  it('keeps Try again while the list still fails', async () => {
    const failing = answerInTurn('GET', '/api/orgs', [BROKEN])
    const page = await mount()
    await vi.waitFor(() => expect(tryAgain(page)).toBeDefined())
    await tryAgain(page)!.trigger('click')
    await vi.waitFor(() => expect(failing.bodies).toHaveLength(2))
    await vi.waitFor(() => expect(tryAgain(page)).toBeDefined())
    expect(page.find('[role="alert"]').text()).toContain('could not be loaded')
  })

  it('offers no Try again when the list loads', async () => {
    answer('GET', '/api/orgs', 200, LISTED.body)
    const page = await mount()
    await vi.waitFor(() => expect(page.findAll('.choices button')).toHaveLength(2))
    expect(tryAgain(page)).toBeUndefined()
  })
})
