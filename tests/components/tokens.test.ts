/**
 * pages/tokens.vue with its create form and token items: the form's own checks, pending states,
 * the raw token shown once, the two-click revoke-all, and the banner for each answer mapped.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import TokensPage from '../../pages/tokens.vue'
import { answer, held } from './bff'

const TOKEN = {
  id: 3,
  name: 'billing export',
  created_at: '2026-01-02T03:04:05.000Z',
  expires_at: null,
  restricted_to_ip_address: null,
  public_identifier: 'pub_3',
  last_used: null,
  usage_count: 1,
  privilege_type: 'demo',
}
const list = (tokenList: unknown[]) => ({ ok: true, data: { tokenList, total: tokenList.length, totalValidTokens: tokenList.length, totalInvalidTokens: 0 } })

beforeEach(() => {
  answer('GET', '/api/auth/session', 200, { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, roles: [] })
  answer('GET', '/api/tokens', 200, list([TOKEN]))
})

async function tokensPage() {
  const page = await mountSuspended(TokensPage, { route: '/tokens' })
  await vi.waitFor(() => expect(page.find('#list-heading').exists()).toBe(true))
  return page
}
type Page = Awaited<ReturnType<typeof tokensPage>>
const createForm = (page: Page) => page.find('form[aria-labelledby="create-heading"]')

describe('tokens page', () => {
  it('asks for a name and well-formed IPv4 addresses before creating', async () => {
    const create = answer('POST', '/api/tokens', 201, { ok: true, data: { rawApiKey: 'k' } })
    const page = await tokensPage()
    await createForm(page).find('input#token-ips').setValue('203.0.113.7, 999.1.1.1')
    await createForm(page).trigger('submit')
    expect(page.find('#token-name-error').text()).toBe('Give the token a name.')
    expect(page.find('#token-ips-error').text()).toBe('Use IPv4 addresses like 203.0.113.7, separated by commas.')
    expect(create.bodies).toEqual([])
  })

  it('disables the create button while pending, then shows the raw token once', async () => {
    const { gate, release } = held()
    const create = answer('POST', '/api/tokens', 201, { ok: true, data: { rawApiKey: 'raw-api-key-123' } }, gate)
    const page = await tokensPage()
    await createForm(page).find('input#token-name').setValue(' ci ')
    await createForm(page).find('input#token-ips').setValue('203.0.113.7')
    await createForm(page).trigger('submit')
    await vi.waitFor(() => expect(createForm(page).find('button[type="submit"]').attributes('disabled')).toBeDefined())
    release()
    await vi.waitFor(() => expect(page.find('#raw-heading').text()).toBe('Your new API token'))
    expect((page.find('input#raw-token').element as HTMLInputElement).value).toBe('raw-api-key-123')
    expect(create.bodies).toEqual([{ name: 'ci', privilege: 'demo', expires: 30 * 86_400_000, ipv4: ['203.0.113.7'] }])
  })

  it.each([
    [429, { ok: false, retry: 1 }, 'Too many attempts. Try again in 1 second.'],
    [403, { ok: false, error: 'Token limit reached.' }, 'Token limit reached.'],
    [500, {}, 'Something went wrong on our side. Please try again.'],
  ])('shows the create banner for a %i answer', async (status, body, message) => {
    answer('POST', '/api/tokens', status, body)
    const page = await tokensPage()
    await createForm(page).find('input#token-name').setValue('ci')
    await createForm(page).trigger('submit')
    await vi.waitFor(() => expect(createForm(page).find('.alert[role="alert"]').text()).toBe(message))
  })

  it("puts a 400 answer's ipv4 message beside the addresses field, with no banner above the form", async () => {
    answer('POST', '/api/tokens', 400, { ok: false, error: 'Validation failed', fields: { ipv4: 'At most 10 addresses.' } })
    const page = await tokensPage()
    await createForm(page).find('input#token-name').setValue('ci')
    await createForm(page).trigger('submit')
    await vi.waitFor(() => expect(page.find('#token-ips-error').text()).toBe('At most 10 addresses.'))
    expect(createForm(page).find('.alert').exists()).toBe(false)
  })

  it('revokes all tokens only after the confirming second click', async () => {
    answer('GET', '/api/tokens', 200, list([TOKEN, { ...TOKEN, id: 4, name: 'b' }]))
    const revokeAll = answer('POST', '/api/tokens/revoke-all', 200, { ok: true, data: { revokedCount: 2 } })
    const page = await tokensPage()
    const button = (text: string) => page.findAll('button.danger').find((b) => b.text() === text)
    await button('Revoke all 2 tokens')!.trigger('click')
    expect(revokeAll.bodies).toEqual([])
    expect(page.text()).toContain('Every script and service using one of these 2 tokens stops working.')
    await button('Yes, revoke all 2 tokens')!.trigger('click')
    await vi.waitFor(() => expect(page.find('.alert.success').text()).toBe('2 tokens revoked.'))
    expect(revokeAll.bodies).toEqual([{ confirm: true }])
  })

  it('checks the newest token in the verify command, by its privilege and name; with no token, the privilege a new one gets', async () => {
    answer('GET', '/api/tokens', 200, list([TOKEN, { ...TOKEN, id: 4, name: 'deploy', privilege_type: 'full', created_at: '2026-02-01T00:00:00.000Z' }]))
    const page = await tokensPage()
    const help = page.find('section[aria-labelledby="verify-heading"]')
    expect(help.find('pre').text()).toMatch(/\?privilege=full"$/)
    expect(help.text()).toContain('for “deploy”, which holds full')
    answer('GET', '/api/tokens', 200, list([]))
    const empty = await tokensPage()
    expect(empty.find('section[aria-labelledby="verify-heading"] pre').text()).toMatch(/\?privilege=demo"$/)
  })

  it('offers one revoke button for a single token: its own, no second one for all', async () => {
    const page = await tokensPage()
    expect(page.findAll("button.danger").map((b) => b.text().replace(TOKEN.name, "").trim())).toEqual(["Revoke"])
  })

  it('counts the tokens revoke-all will end when there are several', async () => {
    answer('GET', '/api/tokens', 200, list([TOKEN, { ...TOKEN, id: 4, name: 'b' }, { ...TOKEN, id: 5, name: 'c' }]))
    const page = await tokensPage()
    const button = (text: string) => page.findAll('button.danger').find((b) => b.text() === text)
    await button('Revoke all 3 tokens')!.trigger('click')
    expect(button('Yes, revoke all 3 tokens')).toBeDefined()
    expect(page.text()).toContain('one of these 3 tokens stops working.')
  })

  it("shows the gateway's verify URL on the page's own origin, with a curl command for the newest token's privilege that copies with a visible confirmation", async () => {
    const writeText = vi.fn<(text: string) => Promise<void>>().mockResolvedValue(undefined)
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } })
    try {
      const page = await tokensPage()
      const help = page.find('section[aria-labelledby="verify-heading"]')
      const origin = window.location.origin
      expect(help.find('code.mono').text()).toBe(`${origin}/api/public/verify`)
      const command = `curl -H "x-api-key: <token>" "${origin}/api/public/verify?privilege=${TOKEN.privilege_type}"`
      expect(help.find('pre').text()).toBe(command)
      expect(help.find('[role="status"]').text()).toBe('')
      await help.findAll('button').find((b) => b.text() === 'Copy command')!.trigger('click')
      await vi.waitFor(() => expect(help.find('[role="status"]').text()).toBe('Command copied.'))
      expect(writeText).toHaveBeenCalledWith(command)
    } finally {
      vi.unstubAllGlobals()
    }
  })

  it('explains each of the five privileges in one line', async () => {
    const page = await tokensPage()
    const terms = page.findAll('dl.privileges dt').map((dt) => dt.text())
    expect(terms).toEqual(['demo', 'restricted', 'protected', 'full', 'custom'])
    for (const dd of page.findAll('dl.privileges dd')) expect(dd.text().length).toBeGreaterThan(20)
  })

  it('shows the saved privilege and the current usage on the card after a privilege change, without a page reload', async () => {
    const update = answer('POST', '/api/tokens/privilege', 200, { ok: true, data: { msg: 'Privileges updated successfully' } })
    const page = await tokensPage()
    const item = page.find('li.token')
    answer('GET', '/api/tokens', 200, list([{ ...TOKEN, privilege_type: 'full', usage_count: 4 }]))
    await item.find('select#t3-privilege').setValue('full')
    await item.findAll('form')[1]!.trigger('submit')
    await vi.waitFor(() => expect(page.find('li.token dl').text()).toContain('full'))
    const card = page.find('li.token')
    // the count beside its label ("Times used"): a number needs no plural form in any language
    expect(card.findAll('dd')[2]!.text()).toBe('4')
    expect(card.find('.alert.success').text()).toBe('Privilege changed to full. Checks must now ask for full.')
    expect(update.bodies).toEqual([{ tokenId: 3, publicIdentifier: 'pub_3', name: 'billing export', newPrivilege: 'full' }])
  })

  it('shows the new allowed addresses on the card after they are saved', async () => {
    answer('POST', '/api/tokens/ip-restriction', 200, { ok: true })
    const page = await tokensPage()
    answer('GET', '/api/tokens', 200, list([{ ...TOKEN, restricted_to_ip_address: ['10.0.0.1'] }]))
    await page.find('input#t3-ips').setValue('10.0.0.1')
    await page.find('li.token form').trigger('submit')
    await vi.waitFor(() => expect(page.find('li.token dl').text()).toContain('10.0.0.1'))
    expect(page.find('li.token .alert.success').text()).toBe('Allowed addresses saved.')
  })

  it.each([
    ['host_not_allowed', 'Invalid Host', 'The address this came from is not allowed to use the token.'],
    ['api_key_invalid', 'Invalid key', 'The token was not accepted: it is revoked or expired, or the privilege does not match.'],
    ['token_not_found', 'Token not found or unauthorized', 'This token no longer exists or is not yours. Reload the page.'],
    // one reason text, two meanings: the words follow the code
    ['token_not_found', 'Bad Request', 'This token no longer exists or is not yours. Reload the page.'],
    ['bad_request', 'Bad Request', 'The request was not understood: the privilege or the token details are wrong. Reload the page and try again.'],
  ])('says the code "%s" (reason "%s") in words on the token', async (code, reason, words) => {
    answer('POST', '/api/tokens/rotate', 400, { ok: false, date: '2026-01-02T03:04:05.000Z', reason, code })
    const page = await tokensPage()
    const item = page.find('li.token')
    await item.findAll('button').find((b) => b.text().startsWith('Rotate'))!.trigger('click')
    await vi.waitFor(() => expect(item.find('.alert[role="alert"]').text()).toBe(words))
  })

  it("checks a token's new IPv4 list before saving it", async () => {
    const restrict = answer('POST', '/api/tokens/ip-restriction', 200, { ok: true })
    const page = await tokensPage()
    const item = page.find('li.token')
    await item.find('input#t3-ips').setValue('10.0.0.256')
    await item.find('form').trigger('submit')
    expect(item.find('#t3-ips-error').text()).toBe('Use IPv4 addresses like 203.0.113.7, separated by commas.')
    expect(restrict.bodies).toEqual([])
    await item.find('input#t3-ips').setValue('10.0.0.1')
    await item.find('form').trigger('submit')
    await vi.waitFor(() => expect(item.find('.alert.success').text()).toBe('Allowed addresses saved.'))
    expect(restrict.bodies).toEqual([{ tokenId: 3, publicIdentifier: 'pub_3', name: 'billing export', ipv4: ['10.0.0.1'] }])
  })

  it("shows a token action's refusal on that token", async () => {
    answer('POST', '/api/tokens/rotate', 404, { ok: false, error: 'Token not found' })
    const page = await tokensPage()
    const item = page.find('li.token')
    await item.findAll('button').find((b) => b.text().startsWith('Rotate'))!.trigger('click')
    await vi.waitFor(() => expect(item.find('.alert[role="alert"]').text()).toBe('Token not found'))
  })

  it('shows the MFA notice in the page language when the list answers 202, not the IAM sentence', async () => {
    answer('GET', '/api/tokens', 202, { ok: false, mfa: true, message: 'Confirm it is you from the email we sent.' })
    const page = await mountSuspended(TokensPage, { route: '/tokens' })
    await vi.waitFor(() => expect(page.find('.alert.info').text()).toBe('For your security we sent a sign-in link to your email. Open it to continue.'))
  })

  it('offers to sign in when the list answers 401', async () => {
    answer('GET', '/api/tokens', 401, { ok: false, signedOut: true })
    const page = await mountSuspended(TokensPage, { route: '/tokens' })
    await vi.waitFor(() => expect(page.text()).toContain('to manage your tokens.'))
  })
})
