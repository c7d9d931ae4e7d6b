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

  it('offers the administration console in the menu to a platform administrator only', async () => {
    const links = (page: Header) => page.findAll('#account-menu a').map((a) => a.attributes('href'))
    const person = await signedInHeader()
    expect(links(person)).not.toContain('/admin')
    person.unmount()
    mounted.splice(0)
    clearNuxtState()
    answer('GET', '/api/auth/session', 200, { ...SIGNED_IN, roles: ['admin'] })
    const admin = await header()
    await vi.waitFor(() => expect(menuButton(admin).exists()).toBe(true))
    expect(links(admin)).toContain('/admin')
    expect(admin.find('#account-menu a[href="/admin"]').text()).toBe('Administration')
  })

  it('names the account by its email when it has no name', async () => {
    answer('GET', '/api/auth/session', 200, { ...SIGNED_IN, name: null })
    const page = await header()
    await vi.waitFor(() => expect(menuButton(page).text()).toBe('Account menu for ada.lovelace@example.com'))
  })

  it('opens the menu with the console parts, API tokens and Sign out, and Escape closes it with focus back on the button', async () => {
    const page = await signedInHeader()
    await menuButton(page).trigger('click')
    expect(menuButton(page).attributes('aria-expanded')).toBe('true')
    const menu = page.find('#account-menu')
    expect(menu.classes()).toContain('open')
    expect(menu.findAll('a').map((a) => [a.text(), a.attributes('href')])).toEqual([
      ['Overview', '/account'],
      ['Security', '/account/security'],
      ['Sessions', '/account/sessions'],
      ['Apps', '/account/apps'],
      ['Your data', '/account/data'],
      ['API tokens', '/tokens'],
      // the organization switcher's links, after the account's own
      ['Organizations', '/orgs'],
      ['Create organization', '/orgs#create-organization'],
    ])
    expect(menu.find('button[type="submit"]').text()).toBe('Sign out')
    ;(menu.find('a').element as HTMLElement).focus()
    await menu.find('a').trigger('keydown', { key: 'Escape' })
    expect(menuButton(page).attributes('aria-expanded')).toBe('false')
    expect(document.activeElement).toBe(menuButton(page).element)
  })

  it('marks the console part open now with aria-current, and none outside the console', async () => {
    answer('GET', '/api/auth/session', 200, SIGNED_IN)
    const page = await header('/account/sessions')
    await vi.waitFor(() => expect(menuButton(page).exists()).toBe(true))
    const current = () => page.findAll('#account-menu a[aria-current="page"]').map((a) => a.text())
    expect(current()).toEqual(['Sessions'])
    page.unmount()
    mounted.splice(0)
    clearNuxtState()
    const elsewhere = await signedInHeader()
    expect(elsewhere.findAll('#account-menu a[aria-current]')).toHaveLength(0)
  })

  it('shows the chosen picture on the menu button, decorative beside the name, and none without one', async () => {
    answer('GET', '/api/auth/session', 200, { ...SIGNED_IN, picture: { source: 'upload', src: '/api/auth/picture' } })
    const page = await header()
    await vi.waitFor(() => expect(menuButton(page).find('img').exists()).toBe(true))
    expect(menuButton(page).find('img').attributes()).toMatchObject({ src: '/api/auth/picture', alt: '' })
    expect(menuButton(page).text()).toBe('Account menu for Ada Lovelace')
    page.unmount()
    mounted.splice(0)
    clearNuxtState()
    const without = await signedInHeader()
    expect(menuButton(without).find('img').exists()).toBe(false)
  })

  it('the menu lists the organizations and Personal, marks the active one, and switches through the BFF', async () => {
    const orgs = [
      { id: '6f1c2d9e-0a1b-4c2d-8e3f-123456789abc', slug: 'acme', name: 'Acme', role: 'owner', roleName: 'owner' },
      { id: '7a2b3c4d-0a1b-4c2d-8e3f-123456789abc', slug: 'globex', name: 'Globex', role: 'member', roleName: 'member' },
    ]
    answer('GET', '/api/orgs', 200, { ok: true, data: { orgs, active: { id: orgs[0]!.id, slug: 'acme', role: 'owner' } } })
    const switched = answer('POST', '/api/orgs/active', 200, { ok: true, signedIn: true, org: { id: orgs[1]!.id, slug: 'globex', role: 'member' } })
    const page = await signedInHeader()
    await menuButton(page).trigger('click')
    await vi.waitFor(() => expect(page.find('[data-testid="active-org"]').text()).toBe('Acme'))
    const choices = page.findAll('.org-switcher .choices button')
    expect(choices.map((b) => [b.text().replace(/\s+/g, ' ').trim(), b.attributes('aria-current') ?? null])).toEqual([
      ['Personal: switch to acting for yourself', null],
      ['Acme (active)', 'true'],
      ['Globex: switch to this organization', null],
    ])
    await choices[2]!.trigger('click')
    await vi.waitFor(() => expect(page.find('[data-testid="active-org"]').text()).toBe('Globex'))
    expect(switched.bodies).toEqual([{ orgId: orgs[1]!.id }])
  })

  it('says in words when the organization to switch to is gone, and reads the list again', async () => {
    const orgs = [{ id: '6f1c2d9e-0a1b-4c2d-8e3f-123456789abc', slug: 'acme', name: 'Acme', role: 'member', roleName: 'member' }]
    answer('GET', '/api/orgs', 200, { ok: true, data: { orgs, active: null } })
    answer('POST', '/api/orgs/active', 404, { ok: false, error: 'No such organization', code: 'org_not_found' })
    const page = await signedInHeader()
    await menuButton(page).trigger('click')
    await vi.waitFor(() => expect(page.findAll('.org-switcher .choices button')).toHaveLength(2))
    await page.findAll('.org-switcher .choices button')[1]!.trigger('click')
    await vi.waitFor(() => expect(page.find('.org-switcher [role="alert"]').text()).toBe('You are no longer a member of that organization.'))
    expect(page.find('[data-testid="active-org"]').text()).toBe('Personal')
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
