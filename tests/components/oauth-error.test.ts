/** pages/auth/error.vue and pages/index.vue: what a person reads after a provider sign-in failed, and the start page's two ways in. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { describe, expect, it } from 'vitest'
import ErrorPage from '../../pages/auth/error.vue'
import IndexPage from '../../pages/index.vue'
import { OAUTH_ERROR_EXPLANATIONS, UNKNOWN_OAUTH_ERROR } from '../../utils/oauth-errors'

// read as a file: an import of the catalogue goes through the i18n module's compiler
const en = JSON.parse(readFileSync(join(process.cwd(), 'i18n', 'locales', 'en.json'), 'utf8')) as unknown
/** The English words of a catalogue key, as the page shows them in its default language. */
const english = (key: string) => key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], en) as string

describe('OAuth error page', () => {
  it.each(Object.keys(OAUTH_ERROR_EXPLANATIONS))('explains the code %s and names it', async (code) => {
    const page = await mountSuspended(ErrorPage, { route: `/auth/error?error=${code}` })
    expect(page.find('h1').text()).toBe(english(OAUTH_ERROR_EXPLANATIONS[code]!.title))
    expect(page.find('[role="alert"]').text()).toBe(english(OAUTH_ERROR_EXPLANATIONS[code]!.text))
    expect(page.find('code').text()).toBe(code)
  })

  it('says when to try again after a rate limit that came with its wait', async () => {
    const page = await mountSuspended(ErrorPage, { route: '/auth/error?error=rate_limited&retry=840' })
    expect(page.find('[role="alert"]').text()).toBe('Please try again in 14 minutes.')
    const without = await mountSuspended(ErrorPage, { route: '/auth/error?error=rate_limited&retry=later' })
    expect(without.find('[role="alert"]').text()).toBe(english(OAUTH_ERROR_EXPLANATIONS.rate_limited!.text))
  })

  it('offers email signup only when the provider shared no address', async () => {
    const missing = await mountSuspended(ErrorPage, { route: '/auth/error?error=email_missing' })
    expect(missing.find('a[href="/signup"]').exists()).toBe(true)
    const other = await mountSuspended(ErrorPage, { route: '/auth/error?error=access_denied' })
    expect(other.find('a[href="/signup"]').exists()).toBe(false)
  })

  it('gives an unknown code the generic explanation, shown as text, never as markup', async () => {
    const page = await mountSuspended(ErrorPage, { route: `/auth/error?error=${encodeURIComponent('<img src=x onerror=alert(1)>')}` })
    expect(page.find('h1').text()).toBe(english(UNKNOWN_OAUTH_ERROR.title))
    expect(page.find('img').exists()).toBe(false)
    expect(page.find('code').text()).toBe('<img src=x onerror=alert(1)>')
  })
})

describe('start page', () => {
  it('links to sign-in and signup', async () => {
    const page = await mountSuspended(IndexPage, { route: '/' })
    expect(page.findAll('nav a').map((a) => a.attributes('href'))).toEqual(['/login', '/signup'])
  })
})
