/**
 * pages/interaction/[uid].vue, the consent step: an app known only by its Client ID Metadata
 * Document is shown by the host its document came from, said in plain words to be unverified,
 * with the name it gives itself as its own claim, what it asks for in words, and the API (the
 * `resource` indicator) it wants to use, each of the API's scopes with the words its configuration
 * gives (else its name alone, in code style). A registered app is shown by its registered name,
 * without the notice. The interaction's details are the gateway's answer (tests/gateway/
 * oidc-client-metadata-documents.test.ts checks that the provider gives the host).
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { describe, expect, it, vi } from 'vitest'
import InteractionPage from '../../pages/interaction/[uid].vue'
import { answer } from './bff'

const UID = 'interaction-uid-0123456789'

type Resource = { indicator: string; scopes: string[]; descriptions: Record<string, Record<string, string>> }
const NOTES: Resource = { indicator: 'https://mcp.example.com/mcp', scopes: ['notes:read'], descriptions: {} }

function consentView(client: { name: string; firstParty: boolean; metadataDocumentHost: string | null }, resources: Resource[] = [NOTES], scopes = ['openid', 'email']) {
  return {
    ok: true,
    data: {
      uid: UID,
      prompt: 'consent',
      client,
      scopes,
      resources,
      loginHint: null,
      uiLocales: [],
      freshSignIn: { required: false, maxAgeSeconds: null },
    },
  }
}

async function consentPage(client: { name: string; firstParty: boolean; metadataDocumentHost: string | null }, resources?: Resource[], scopes?: string[]) {
  answer('GET', '/api/auth/session', 200, { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, name: 'Ada', roles: [] })
  answer('GET', `/interaction/${UID}/details`, 200, consentView(client, resources, scopes))
  const page = await mountSuspended(InteractionPage, { route: `/interaction/${UID}` })
  await vi.waitFor(() => expect(page.find('button').text()).toBe('Allow'))
  return page
}

describe('the consent step', () => {
  it('calls an app known by its metadata document by its host, says the site has not verified it, and quotes the name it gives itself', async () => {
    const page = await consentPage({ name: 'Your Bank', firstParty: false, metadataDocumentHost: 'agent.example:8443' })
    expect(page.find('h1').text()).toBe('Sign in to agent.example:8443')
    const notice = page.find('[data-testid="unverified-app"]')
    expect(notice.text()).toContain('This app is known only by its address, agent.example:8443. Identity has not verified who runs it.')
    expect(notice.text()).toContain('It calls itself “Your Bank”; that name is its own claim.')
    expect(notice.text()).toContain('Allow it only if you trust agent.example:8443 and you started this sign-in yourself.')
    expect(notice.attributes('role')).toBe('note')
  })

  it('lists what the app asks for in words, and the API it asks to use by its resource indicator', async () => {
    const page = await consentPage({ name: 'agent.example', firstParty: false, metadataDocumentHost: 'agent.example' })
    const items = page.findAll('li').map((li) => li.text().replace(/\s+/g, ' '))
    expect(items).toEqual(['Know who you are (your account id)', 'Your email address, and whether it is confirmed', 'Use https://mcp.example.com/mcp for you, to: notes:read', 'notes:read'])
    // a document whose name is its host: nothing to quote
    expect(page.find('[data-testid="unverified-app"]').text()).not.toContain('calls itself')
  })

  it('says an API scope once, under its API, not again among the sign-in scopes', async () => {
    const page = await consentPage({ name: 'agent.example', firstParty: false, metadataDocumentHost: 'agent.example' }, [NOTES], ['openid', 'notes:read', 'offline_access'])
    const items = page.findAll('li').map((li) => li.text().replace(/\s+/g, ' '))
    expect(items.filter((item) => item.includes('notes:read'))).toEqual(['Use https://mcp.example.com/mcp for you, to: notes:read', 'notes:read'])
    expect(items[0]).toBe('Know who you are (your account id)')
  })

  it('shows a registered app by its registered name, without the unverified notice', async () => {
    const page = await consentPage({ name: 'Wiki', firstParty: false, metadataDocumentHost: null })
    expect(page.find('h1').text()).toBe('Sign in to Wiki')
    expect(page.find('[data-testid="unverified-app"]').exists()).toBe(false)
  })

  it('says what an API scope lets the app do in the words its configuration gives, with the scope name beside in code style', async () => {
    const tools: Resource = {
      indicator: 'https://tools.example.com/mcp',
      scopes: ['tools:read', 'tools:run'],
      descriptions: { 'tools:read': { en: 'See the list of your tools', de: 'Die Liste Ihrer Werkzeuge sehen' }, 'tools:run': { default: 'Run your tools' } },
    }
    const page = await consentPage({ name: 'Wiki', firstParty: false, metadataDocumentHost: null }, [tools])
    const scopes = page.findAll('[data-testid="consent-resource"] li')
    expect(scopes.map((li) => li.text())).toEqual(['See the list of your tools tools:read', 'Run your tools tools:run'])
    expect(scopes.map((li) => li.find('code').text())).toEqual(['tools:read', 'tools:run'])
  })

  it('shows an API scope without a description by its raw name in code style alone', async () => {
    const page = await consentPage({ name: 'Wiki', firstParty: false, metadataDocumentHost: null }, [{ indicator: 'https://tools.example.com/mcp', scopes: ['tools:write'], descriptions: {} }])
    const scope = page.find('[data-testid="consent-resource"] li')
    expect(scope.text()).toBe('tools:write')
    expect(scope.find('code').text()).toBe('tools:write')
  })
})
