/** pages/sso/error.vue: what a person reads after a company (SAML) sign-in was refused, by the IAM's code. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { describe, expect, it } from 'vitest'
import SsoErrorPage from '../../pages/sso/error.vue'
import { SSO_ERROR_GROUPS } from '../../shared/sso-error-codes'

// read as a file: an import of the catalogue goes through the i18n module's compiler
const en = JSON.parse(readFileSync(join(process.cwd(), 'i18n', 'locales', 'en.json'), 'utf8')) as unknown
const english = (key: string) => key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], en) as string

describe('company sign-in error page', () => {
  it.each(Object.entries(SSO_ERROR_GROUPS))('words the code %s with its own group (%s) and names the code', async (code, group) => {
    const page = await mountSuspended(SsoErrorPage, { route: `/sso/error?code=${code}` })
    expect(page.find('h1').text()).toBe(english(`enterprise.error.${group}.title`))
    expect(page.find('[role="alert"]').text()).toBe(english(`enterprise.error.${group}.text`))
    expect(page.find('code').text()).toBe(code)
  })

  it('gives a code it does not word the generic words, and a malformed one no code line', async () => {
    const failed = await mountSuspended(SsoErrorPage, { route: '/sso/error?code=sso_failed' })
    expect(failed.find('h1').text()).toBe(english('enterprise.error.failed.title'))
    const malformed = await mountSuspended(SsoErrorPage, { route: `/sso/error?code=${encodeURIComponent('<b>x</b>')}` })
    expect(malformed.find('h1').text()).toBe(english('enterprise.error.failed.title'))
    expect(malformed.find('code').exists()).toBe(false)
  })
})
