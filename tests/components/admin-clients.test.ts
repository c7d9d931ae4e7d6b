/**
 * The admin console's OpenID clients (pages/admin/clients.vue): every client with its kind, a
 * document client by its host with when it was seen and how many people allowed it; blocking its
 * host is confirmed in place (Cancel first, Escape cancels) and then sent; a block from the
 * configuration has no Unblock button, a console block has one; the IAM's refusal is said in words.
 */
import { describe, expect, it, vi } from 'vitest'
import ClientsPage from '../../pages/admin/clients.vue'
import { mountSignedIn } from './admin-mount'
import { answer, answerInTurn } from './bff'

const SIGNED_IN = { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, name: 'Ada', roles: [] }
const NOW = '2026-01-02T03:04:05.000Z'
const AGENT = 'https://agent.example/client.json'
const AGENT_KEY = 'https___agent_example_client_json'
const configured = { kind: 'configured', clientId: 'orders-app', name: 'Orders', host: null, firstSeenAt: NOW, lastSeenAt: null, people: 3, blocked: false }
const agent = (over: Record<string, unknown> = {}) => ({ kind: 'metadata_document', clientId: AGENT, name: 'Helpful Agent', host: 'agent.example', firstSeenAt: NOW, lastSeenAt: NOW, people: 2, blocked: false, ...over })
const list = (clients: unknown[], blockedHosts: unknown[] = []) => ({ ok: true, data: { clients, blockedHosts } })

async function mountPage() {
  const page = await mountSignedIn(ClientsPage, '/admin/clients', SIGNED_IN)
  await vi.waitFor(() => expect(page.find('[data-testid="admin-clients"]').exists()).toBe(true))
  return page
}

describe('the OpenID clients page', () => {
  it('lists a configured app and a document client by kind, host, when seen and how many people allowed it', async () => {
    answer('GET', '/api/admin/clients', 200, list([configured, agent()], [{ host: 'bad.example', source: 'config', blockedAt: null }]))
    const page = await mountPage()
    expect(page.find('[data-testid="client-orders-app"]').text()).toContain('Orders Configured')
    expect(page.find('[data-testid="client-orders-app"]').text()).toContain('People who allowed it: 3')
    const row = page.find(`[data-testid="client-${AGENT_KEY}"]`)
    expect(row.text()).toContain('Metadata document (not verified)')
    expect(row.text()).toContain('Host: agent.example')
    expect(row.text()).toContain('First seen')
    expect(row.text()).toContain('People who allowed it: 2')
    // a configured app has no host to block; a block from the configuration cannot be lifted here
    expect(page.find('#client-block-orders-app').exists()).toBe(false)
    expect(page.find('[data-testid="admin-blocked-hosts"]').text()).toContain('Blocked by the configuration')
    expect(page.find('#client-unblock-bad_example').exists()).toBe(false)
  })

  it('blocks a host only after the confirmation, and says how many grants were revoked', async () => {
    answerInTurn('GET', '/api/admin/clients', [
      { status: 200, body: list([agent()]) },
      { status: 200, body: list([agent({ people: 0, blocked: true })], [{ host: 'agent.example', source: 'admin', blockedAt: NOW }]) },
    ])
    const blocked = answer('POST', '/api/admin/clients/block', 200, { ok: true, data: { host: 'agent.example', revokedGrants: 2 } })
    const page = await mountPage()
    await page.find(`#client-block-${AGENT_KEY}`).trigger('click')
    // Cancel has the focus, and Escape keeps everything as it was
    expect(document.activeElement?.textContent?.trim()).toBe('Cancel')
    expect(page.text()).toContain('Block agent.example? Its agents get no more tokens')
    await page.find(`#client-confirm-${AGENT_KEY}`).trigger('keydown', { key: 'Escape' })
    expect(blocked.bodies).toEqual([])
    await vi.waitFor(() => expect(document.activeElement?.id).toBe(`client-block-${AGENT_KEY}`))

    await page.find(`#client-block-${AGENT_KEY}`).trigger('click')
    await page.findAll(`#client-confirm-${AGENT_KEY} button`).find((b) => b.text() === 'Confirm')!.trigger('click')
    await vi.waitFor(() => expect(page.text()).toContain('agent.example is blocked. Grants revoked: 2.'))
    expect(blocked.bodies).toEqual([{ host: 'agent.example' }])
    // the notice is shown before the list is read again (pages/admin/clients.vue, confirmed): wait for the new list
    await vi.waitFor(() => expect(page.find(`[data-testid="client-blocked-${AGENT_KEY}"]`).exists()).toBe(true))
    expect(page.find(`[data-testid="client-blocked-${AGENT_KEY}"]`).text()).toBe('Its host is blocked: it gets no tokens.')
    expect(page.find(`#client-block-${AGENT_KEY}`).exists()).toBe(false)
    expect(page.find('#client-unblock-agent_example').exists()).toBe(true)
  })

  it('unblocks a host blocked from the console, and says so when the configuration holds the block', async () => {
    answer('GET', '/api/admin/clients', 200, list([agent({ blocked: true })], [{ host: 'agent.example', source: 'admin', blockedAt: NOW }]))
    const refused = answer('POST', '/api/admin/clients/blocked-hosts/agent.example/unblock', 409, { ok: false, error: 'The host is blocked by the configuration', code: 'client_host_blocked_in_config' })
    const page = await mountPage()
    await page.find('#client-unblock-agent_example').trigger('click')
    await page.findAll('#client-confirm-unblock-agent_example button').find((b) => b.text() === 'Confirm')!.trigger('click')
    await vi.waitFor(() => expect(page.text()).toContain('agent.example is blocked by the configuration: only a change there lifts it.'))
    expect(refused.bodies.length).toBe(1)
  })
})
