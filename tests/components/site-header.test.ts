/**
 * components/SiteHeader.vue and AccountMenu.vue (the header on every page), and the pages that send
 * a signed-in person on (home, /login). The session comes from the BFF's GET /api/auth/session like
 * in the gateway; each test starts with no session state read yet.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { afterEach, describe, expect, it, vi } from 'vitest'
import SiteHeader from '../../components/SiteHeader.vue'
import HomePage from '../../pages/index.vue'
import LoginPage from '../../pages/login.vue'
import { answer, held } from './bff'

const SIGNED_IN = { authenticated: true, userId: '3', email: 'ada.lovelace@example.com', emailVerified: true, name: 'Ada Lovelace', roles: [] }

// The session state is shared by every mount (useState): each test unmounts what it mounted and
// forgets the session, so the next one starts with nothing read yet.
const mounted: Array<{ unmount(): void }> = []
afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.unmount()
  clearNuxtState()
})

async function mount(component: typeof SiteHeader, route: string, attach = false) {
  const wrapper = await mountSuspended(component, { route, ...(attach ? { attachTo: document.body } : {}) })
  mounted.push(wrapper)
  return wrapper
}
const header = (route = '/tokens') => mount(SiteHeader, route, true)
type Header = Awaited<ReturnType<typeof header>>
const menuButton = (page: Header) => page.find('button[aria-controls="account-menu"]')
const signedInHeader = async () => {
  answer('GET', '/api/auth/session', 200, SIGNED_IN)
  const page = await header()
  await vi.waitFor(() => expect(menuButton(page).exists()).toBe(true))
  return page
}

describe('site header', () => {
  it('offers neither sign-in nor the menu while the session is being read', async () => {
    const { gate, release } = held()
    answer('GET', '/api/auth/session', 200, SIGNED_IN, gate)
    const page = await header()
    expect(page.find('[aria-busy="true"]').exists()).toBe(true)
    expect(page.text()).not.toContain('Sign in')
    expect(menuButton(page).exists()).toBe(false)
    release()
    await vi.waitFor(() => expect(menuButton(page).exists()).toBe(true))
    expect(page.find('[aria-busy="true"]').exists()).toBe(false)
  })

  it('shows who is signed in on a closed disclosure button named for the menu', async () => {
    const page = await signedInHeader()
    const button = menuButton(page)
    expect(button.text()).toBe('Account menu for Ada Lovelace')
    expect(button.attributes('aria-expanded')).toBe('false')
    expect(page.find('#account-menu').classes()).not.toContain('open')
    expect(page.text()).not.toContain('Create account')
  })

  it('names the account by its email when it has no name', async () => {
    answer('GET', '/api/auth/session', 200, { ...SIGNED_IN, name: null })
    const page = await header()
    await vi.waitFor(() => expect(menuButton(page).text()).toBe('Account menu for ada.lovelace@example.com'))
  })

  it('opens the menu with Account, API tokens and Sign out, and Escape closes it with focus back on the button', async () => {
    const page = await signedInHeader()
    await menuButton(page).trigger('click')
    expect(menuButton(page).attributes('aria-expanded')).toBe('true')
    const menu = page.find('#account-menu')
    expect(menu.classes()).toContain('open')
    expect(menu.findAll('a').map((a) => [a.text(), a.attributes('href')])).toEqual([
      ['Account', '/account'],
      ['API tokens', '/tokens'],
    ])
    expect(menu.find('button[type="submit"]').text()).toBe('Sign out')
    ;(menu.find('a').element as HTMLElement).focus()
    await menu.find('a').trigger('keydown', { key: 'Escape' })
    expect(menuButton(page).attributes('aria-expanded')).toBe('false')
    expect(document.activeElement).toBe(menuButton(page).element)
  })

  it('signs out from the menu through the BFF and lands on the sign-in page saying so', async () => {
    const logout = answer('POST', '/api/auth/logout', 200, { ok: true })
    const page = await signedInHeader()
    await menuButton(page).trigger('click')
    await page.find('#account-menu form').trigger('submit')
    await vi.waitFor(() => expect(useRouter().currentRoute.value.fullPath).toBe('/login?signedOut=1'))
    expect(logout.bodies).toHaveLength(1)
    await vi.waitFor(() => expect(page.text()).toContain('Sign in'))
    expect(menuButton(page).exists()).toBe(false)
  })

  it('keeps a sign-out form that posts to the BFF with the CSRF field, for a browser without JavaScript', async () => {
    const page = await signedInHeader()
    const form = page.find('#account-menu form')
    expect(form.attributes('method')).toBe('post')
    expect(form.attributes('action')).toBe('/api/auth/logout')
    expect(form.find('input[type="hidden"][name="_csrf"]').exists()).toBe(true)
  })

  it('offers "Sign in" and "Create account" to a signed-out browser', async () => {
    answer('GET', '/api/auth/session', 200, { authenticated: false })
    const page = await header()
    await vi.waitFor(() => expect(page.find('nav[aria-label="Account"]').exists()).toBe(true))
    expect(page.findAll('nav a').map((a) => [a.text(), a.attributes('href')])).toEqual([
      ['Sign in', '/login'],
      ['Create account', '/signup'],
    ])
    expect(menuButton(page).exists()).toBe(false)
  })
})

describe('pages a signed-in person does not need', () => {
  it('home sends a signed-in person to the account page', async () => {
    answer('GET', '/api/auth/session', 200, SIGNED_IN)
    await mount(HomePage, '/')
    await vi.waitFor(() => expect(useRouter().currentRoute.value.fullPath).toBe('/account'))
  })

  it('/login sends a signed-in person to a safe returnTo', async () => {
    answer('GET', '/api/auth/session', 200, SIGNED_IN)
    await mount(LoginPage, '/login?returnTo=/tokens')
    await vi.waitFor(() => expect(useRouter().currentRoute.value.fullPath).toBe('/tokens'))
  })

  it('/login sends a signed-in person to the account page instead of an unsafe returnTo', async () => {
    answer('GET', '/api/auth/session', 200, SIGNED_IN)
    await mount(LoginPage, '/login?returnTo=//evil.example')
    await vi.waitFor(() => expect(useRouter().currentRoute.value.fullPath).toBe('/account'))
  })

  it('/login stays for a signed-out browser', async () => {
    const session = answer('GET', '/api/auth/session', 200, { authenticated: false })
    const page = await mount(LoginPage, '/login?returnTo=/tokens')
    await vi.waitFor(() => expect(session.bodies).toHaveLength(1))
    await vi.waitFor(() => expect(page.find('form').exists()).toBe(true))
    await vi.waitFor(() => expect(useRouter().currentRoute.value.fullPath).toBe('/login?returnTo=/tokens'))
  })
})
