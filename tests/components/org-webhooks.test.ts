/**
 * An organization's webhooks section (components/OrgWebhooks.vue, with WebhookEndpoints.vue shared
 * with the admin console): the endpoints read and changed through the organization's own BFF routes,
 * the form offering only the event types an organization's endpoint may hear, and a refusal said in
 * the organization pages' words. Whether the page shows the section at all: tests/components/org-enterprise.test.ts.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { afterEach, describe, expect, it, vi } from 'vitest'
import OrgWebhooks from '../../components/OrgWebhooks.vue'
import { ORGANIZATION_WEBHOOK_TYPES } from '../../iam/contract/webhook-events'
import { answer, answerInTurn } from './bff'

const NOW = '2026-01-02T03:04:05.000Z'
const ORG = '11111111-1111-4111-8111-111111111111'
const BASE = `/api/orgs/${ORG}/webhooks`
const ID = 'ep_AAAAAAAAAAAAAAAAAAAAAA'
const OWNER = ['organization:read', 'members:read', 'owners:manage', 'invitations:read', 'roles:read']
const org = { id: ORG, slug: 'acme', name: 'Acme', createdAt: NOW, role: 'owner', roleName: 'owner', permissions: OWNER }
const endpoint = (over: Record<string, unknown> = {}) => ({
  id: ID,
  url: 'https://hr.example.com/in',
  description: 'HR',
  eventTypes: ['membership.*'],
  enabled: true,
  disabledReason: null,
  previousSecretUntil: null,
  createdAt: NOW,
  updatedAt: NOW,
  stats: { attempts24h: 0, succeeded24h: 0, successRate24h: null, pending: 0, dead: 0 },
  ...over,
})
const list = (endpoints: unknown[]) => ({ ok: true, data: { endpoints, catalogueVersion: '2026-11-30' } })

const mounted: Array<{ unmount(): void }> = []
afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.unmount()
  clearNuxtState()
})

async function mountSection() {
  // attached to the document: the page moves focus to what a change left to read
  const section = await mountSuspended(OrgWebhooks, { props: { org }, attachTo: document.body })
  mounted.push(section)
  await vi.waitFor(() => expect(section.find('#webhook-add').exists()).toBe(true))
  return section
}

const offered = (section: Awaited<ReturnType<typeof mountSection>>, form: string) => section.findAll(`${form} input[type="checkbox"]:not([id$="-enabled"])`).map((box) => (box.element as HTMLInputElement).value)

describe("an organization's webhooks", () => {
  it("adds an endpoint through the organization's route, offering only the organization's event types, and shows its secret once", async () => {
    answerInTurn('GET', BASE, [{ status: 200, body: list([]) }, { status: 200, body: list([endpoint()]) }])
    const created = answer('POST', BASE, 200, { ok: true, data: { endpoint: endpoint(), secret: 'whsec_b3Jn' } })
    const section = await mountSection()
    expect(section.text()).toContain('No endpoints yet.')

    await section.find('#webhook-add').trigger('click')
    expect(offered(section, '#webhook-new')).toEqual(['*', ...ORGANIZATION_WEBHOOK_TYPES])
    expect(offered(section, '#webhook-new')).not.toContain('user.created')
    await section.find('#webhook-new-url').setValue('https://hr.example.com/in')
    const joined = section.findAll('#webhook-new input[type="checkbox"]').find((box) => (box.element as HTMLInputElement).value === 'membership.created')!
    await joined.setValue(true)
    await section.find('#webhook-new').trigger('submit')
    await vi.waitFor(() => expect(section.find('#webhook-secret').exists()).toBe(true))
    expect(created.bodies).toEqual([{ url: 'https://hr.example.com/in', description: '', eventTypes: ['membership.created'] }])
    expect((section.find('#webhook-secret').element as HTMLInputElement).value).toBe('whsec_b3Jn')
    await vi.waitFor(() => expect(section.find('[data-testid="webhook-endpoints"]').text()).toContain('https://hr.example.com/in'))
    // focus on the secret itself, not on the notice around it: the form that had focus is gone
    expect(document.activeElement?.id).toBe('webhook-secret')
  })

  it("edits, tests and reads the deliveries of an endpoint under the organization's path", async () => {
    answer('GET', BASE, 200, list([endpoint()]))
    const updated = answer('POST', `${BASE}/${ID}/update`, 200, { ok: true, data: { endpoint: endpoint({ eventTypes: ['*'] }) } })
    const tested = answer('POST', `${BASE}/${ID}/test`, 200, { ok: true, data: { deliveryId: 9, msgId: 'msg_9' } })
    answer('GET', `${BASE}/${ID}/deliveries`, 200, { ok: true, data: { deliveries: [] } })
    const section = await mountSection()

    await section.find(`#webhook-edit-button-${ID}`).trigger('click')
    const form = `#webhook-edit-${ID}`
    // the endpoint's own wildcard is among the offered types: no extra box for it
    expect(offered(section, form)).toEqual(['*', ...ORGANIZATION_WEBHOOK_TYPES, 'membership.*'])
    await section.find(`${form}-type-0`).setValue(true)
    await section.find(form).trigger('submit')
    await vi.waitFor(() => expect(updated.bodies).toHaveLength(1))
    expect(updated.bodies[0]).toEqual({ url: 'https://hr.example.com/in', description: 'HR', eventTypes: ['membership.*', '*'], enabled: true })
    await vi.waitFor(() => expect(section.find('[role="status"]').text()).toBe('The endpoint was saved.'))

    await section.find(`#webhook-test-${ID}`).trigger('click')
    await vi.waitFor(() => expect(tested.bodies).toHaveLength(1))
    await vi.waitFor(() => expect(section.find('[role="status"]').text()).toBe('A test event is on its way.'))
    await section.find(`#webhook-deliveries-button-${ID}`).trigger('click')
    await vi.waitFor(() => expect(section.find(`#webhook-deliveries-${ID}`).text()).toContain('No deliveries yet.'))
  })

  it("says a refusal of the owner's role in the organization pages' words", async () => {
    answer('GET', BASE, 200, list([endpoint()]))
    const rotated = answer('POST', `${BASE}/${ID}/rotate-secret`, 403, { ok: false, code: 'org_permission_denied', error: 'Owners only' })
    const section = await mountSection()
    await section.find(`#webhook-rotate-${ID}`).trigger('click')
    await section.find(`#webhook-confirm-${ID} button.danger`).trigger('click')
    await vi.waitFor(() => expect(section.find('[role="alert"]').exists()).toBe(true))
    expect(rotated.bodies).toHaveLength(1)
    expect(section.find('[role="alert"]').text()).toBe('Your role in this organization does not allow this. Ask an owner or an admin.')
    expect(section.find('#webhook-secret').exists()).toBe(false)
  })

  it('an endpoint removed meanwhile: the refusal closes its form and the list is read again, as the sentence says', async () => {
    const listed = answerInTurn('GET', BASE, [{ status: 200, body: list([endpoint()]) }, { status: 200, body: list([]) }])
    answer('POST', `${BASE}/${ID}/update`, 404, { ok: false, code: 'webhook_not_found', error: 'No such webhook endpoint' })
    const section = await mountSection()
    await section.find(`#webhook-edit-button-${ID}`).trigger('click')
    await section.find(`#webhook-edit-${ID}`).trigger('submit')
    await vi.waitFor(() => expect(section.find('[role="alert"]').text()).toBe('This endpoint no longer exists. The list is up to date again.'))
    expect(listed.bodies).toHaveLength(2)
    expect(section.find(`#webhook-edit-${ID}`).exists()).toBe(false)
    expect(section.text()).toContain('No endpoints yet.')
    expect(document.activeElement?.getAttribute('role')).toBe('alert')
  })

  it('a rotated secret stays on the page when the list cannot be read again after it, and the failure is said', async () => {
    answerInTurn('GET', BASE, [{ status: 200, body: list([endpoint()]) }, { status: 503, body: { ok: false, code: 'service_unavailable', error: 'Unavailable' } }])
    answer('POST', `${BASE}/${ID}/rotate-secret`, 200, { ok: true, data: { endpoint: endpoint(), secret: 'whsec_bmV3' } })
    const section = await mountSection()
    await section.find(`#webhook-rotate-${ID}`).trigger('click')
    await section.find(`#webhook-confirm-${ID} button.danger`).trigger('click')
    await vi.waitFor(() => expect(section.find('[role="alert"]').exists()).toBe(true))
    expect((section.find('#webhook-secret').element as HTMLInputElement).value).toBe('whsec_bmV3')
    expect(section.find('[role="alert"]').text()).toBe('The service is unavailable for a moment. Please try again shortly.')
    expect(section.find('[data-testid="webhook-endpoints"]').text()).toContain('https://hr.example.com/in')
  })

  it('a second secret in the same place is not marked copied, and a copy the browser refuses says how to copy by hand', async () => {
    answer('GET', BASE, 200, list([endpoint()]))
    answerInTurn('POST', `${BASE}/${ID}/rotate-secret`, [
      { status: 200, body: { ok: true, data: { endpoint: endpoint(), secret: 'whsec_Zmlyc3Q' } } },
      { status: 200, body: { ok: true, data: { endpoint: endpoint(), secret: 'whsec_c2Vjb25k' } } },
    ])
    const writeText = vi.fn().mockResolvedValueOnce(undefined).mockRejectedValueOnce(new Error('denied'))
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    const section = await mountSection()
    const rotate = async () => {
      await section.find(`#webhook-rotate-${ID}`).trigger('click')
      await section.find(`#webhook-confirm-${ID} button.danger`).trigger('click')
    }
    await rotate()
    await vi.waitFor(() => expect((section.find('#webhook-secret').element as HTMLInputElement).value).toBe('whsec_Zmlyc3Q'))
    const copyButton = () => section.findAll('.raw button').at(0)!
    await copyButton().trigger('click')
    await vi.waitFor(() => expect(copyButton().text()).toBe('Copied'))
    await rotate()
    await vi.waitFor(() => expect((section.find('#webhook-secret').element as HTMLInputElement).value).toBe('whsec_c2Vjb25k'))
    expect(copyButton().text()).toBe('Copy secret')
    await copyButton().trigger('click')
    await vi.waitFor(() => expect(section.find('.raw [role="alert"]').text()).toBe('Copying did not work here: select the text in the field and copy it yourself.'))
    expect(writeText).toHaveBeenLastCalledWith('whsec_c2Vjb25k')
  })

  it('an endpoint switched off by its failures says how to switch it back on and send the failed deliveries again', async () => {
    answer('GET', BASE, 200, list([endpoint({ enabled: false, disabledReason: 'failing' }), endpoint({ id: 'ep_BBBBBBBBBBBBBBBBBBBBBB', enabled: false, disabledReason: 'admin' })]))
    const section = await mountSection()
    expect(section.find(`[data-testid="webhook-off-hint-${ID}"]`).text()).toBe('When the receiver works again, switch the endpoint on under “Edit”, then send its failed deliveries again with “Send again a time range”.')
    // switched off by hand: nothing to repair, no hint
    expect(section.find('[data-testid="webhook-off-hint-ep_BBBBBBBBBBBBBBBBBBBBBB"]').exists()).toBe(false)
  })

  it('says in words why a delivery got no answer, never the worker\'s code', async () => {
    answer('GET', BASE, 200, list([endpoint()]))
    const delivery = (id: number, error: string) => ({ id, eventType: 'membership.created', status: 'dead', attempts: 1, nextAttemptAt: null, createdAt: NOW, log: [{ at: NOW, status: null, error }] })
    answer('GET', `${BASE}/${ID}/deliveries`, 200, { ok: true, data: { deliveries: [delivery(1, 'address_refused'), delivery(2, 'timeout'), delivery(3, 'something_new')] } })
    const section = await mountSection()
    await section.find(`#webhook-deliveries-button-${ID}`).trigger('click')
    await vi.waitFor(() => expect(section.find(`[data-testid="webhook-deliveries-${ID}-list"]`).exists()).toBe(true))
    const rows = section.findAll(`[data-testid="webhook-deliveries-${ID}-list"] li`).map((row) => row.text())
    expect(rows[0]).toContain('no answer (the address is not a public one, so nothing was sent: point the endpoint at a public address)')
    expect(rows[1]).toContain('no answer (no full answer in time: the receiver should answer at once and do its work afterwards)')
    expect(rows[2]).toContain('no answer (the receiver could not be reached)')
    expect(rows.join(' ')).not.toMatch(/address_refused|timeout|something_new/)
  })

  it('a refusal that is not about the role is not said as one', async () => {
    answer('GET', BASE, 200, list([endpoint()]))
    answer('POST', `${BASE}/${ID}/test`, 403, { ok: false, code: 'csrf_refused', error: 'Refused' })
    const section = await mountSection()
    await section.find(`#webhook-test-${ID}`).trigger('click')
    await vi.waitFor(() => expect(section.find('[role="alert"]').exists()).toBe(true))
    expect(section.find('[role="alert"]').text()).not.toBe('Your role in this organization does not allow this. Ask an owner or an admin.')
  })

  it('says why the list could not be read', async () => {
    answer('GET', BASE, 404, { ok: false, code: 'org_not_found', error: 'No such organization' })
    const section = await mountSuspended(OrgWebhooks, { props: { org } })
    mounted.push(section)
    await vi.waitFor(() => expect(section.find('[role="alert"]').text()).toBe('This organization no longer exists, or you are no longer a member of it.'))
    expect(section.find('#webhook-add').exists()).toBe(false)
    expect(section.find('#org-webhooks-retry').text()).toBe('Try again')
  })
})
