/**
 * The admin console's webhooks (pages/admin/webhooks.vue): the endpoints with their state, a new
 * endpoint's secret shown once, the form's own checks and the IAM's URL refusal at the field, the
 * removal confirmed in place, "Send again" on a failed delivery only, and a time range sent again
 * after a confirmation that names it (the count of the answer said; a refused field said at the field).
 */
import { describe, expect, it, vi } from 'vitest'
import WebhooksPage from '../../pages/admin/webhooks.vue'
import { mountSignedIn } from './admin-mount'
import { answer, answerInTurn, held } from './bff'

const SIGNED_IN = { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, name: 'Ada', roles: [] }
const NOW = '2026-01-02T03:04:05.000Z'
const ID = 'ep_AAAAAAAAAAAAAAAAAAAAAA'
const endpoint = (over: Record<string, unknown> = {}) => ({
  id: ID,
  url: 'https://crm.example.com/in',
  description: 'CRM',
  eventTypes: ['user.created'],
  enabled: false,
  disabledReason: 'failing',
  previousSecretUntil: null,
  createdAt: NOW,
  updatedAt: NOW,
  stats: { attempts24h: 4, succeeded24h: 1, successRate24h: 0.25, pending: 0, dead: 3 },
  ...over,
})
const list = (endpoints: unknown[]) => ({ ok: true, data: { endpoints, catalogueVersion: '2026-11-30' } })

async function mountPage() {
  const page = await mountSignedIn(WebhooksPage, '/admin/webhooks', SIGNED_IN)
  await vi.waitFor(() => expect(page.find('#webhook-add').exists()).toBe(true))
  return page
}

describe('the webhooks page', () => {
  it('lists an endpoint with why it is off, and shows the secret of a new endpoint once', async () => {
    answerInTurn('GET', '/api/admin/webhooks', [{ status: 200, body: list([endpoint()]) }, { status: 200, body: list([endpoint(), endpoint({ id: 'ep_BBBBBBBBBBBBBBBBBBBBBB', url: 'https://hooks.example.org/x', enabled: true, disabledReason: null })]) }])
    const created = answer('POST', '/api/admin/webhooks', 200, { ok: true, data: { endpoint: endpoint({ id: 'ep_BBBBBBBBBBBBBBBBBBBBBB', url: 'https://hooks.example.org/x' }), secret: 'whsec_c2VjcmV0' } })
    const page = await mountPage()
    expect(page.find(`[data-testid="webhook-state-${ID}"]`).text()).toContain('Off: its deliveries kept failing')
    expect(page.find(`[data-testid="webhook-state-${ID}"]`).text()).toContain('25%')

    await page.find('#webhook-add').trigger('click')
    await page.find('#webhook-new-url').setValue('https://hooks.example.org/x')
    await page.find('#webhook-new-description').setValue('Billing')
    const userCreated = page.findAll('#webhook-new input[type="checkbox"]').find((box) => (box.element as HTMLInputElement).value === 'user.created')!
    await userCreated.setValue(true)
    await page.find('#webhook-new').trigger('submit')
    await vi.waitFor(() => expect(page.find('#webhook-secret').exists()).toBe(true))
    expect(created.bodies).toEqual([{ url: 'https://hooks.example.org/x', description: 'Billing', eventTypes: ['user.created'] }])
    expect((page.find('#webhook-secret').element as HTMLInputElement).value).toBe('whsec_c2VjcmV0')
    expect(page.find('#webhook-secret-heading').text()).toBe('Signing secret of https://hooks.example.org/x')
    // "I have saved it": the secret is gone from the page
    await page.findAll('.raw button').at(1)!.trigger('click')
    expect(page.find('#webhook-secret').exists()).toBe(false)
    expect(page.text()).not.toContain('whsec_c2VjcmV0')
  })

  it('asks for the URL and an event type before sending, and says at the URL when the IAM refuses it', async () => {
    answer('GET', '/api/admin/webhooks', 200, list([]))
    const created = answer('POST', '/api/admin/webhooks', 400, { ok: false, error: 'Validation failed', code: 'webhook_url_refused' })
    const page = await mountPage()
    await page.find('#webhook-add').trigger('click')
    await page.find('#webhook-new').trigger('submit')
    expect(page.find('#webhook-new-url-error').text()).toBe('Enter the endpoint URL.')
    await page.find('#webhook-new-url').setValue('https://10.0.0.1/x')
    await page.find('#webhook-new').trigger('submit')
    expect(page.find('#webhook-new-types-error').text()).toBe('Choose at least one event type.')
    expect(created.bodies).toEqual([])

    await page.find('#webhook-new-type-0').setValue(true)
    await page.find('#webhook-new').trigger('submit')
    await vi.waitFor(() => expect(page.find('#webhook-new-url-error').exists()).toBe(true))
    expect(created.bodies).toEqual([{ url: 'https://10.0.0.1/x', description: '', eventTypes: ['*'] }])
    expect(page.find('#webhook-new-url-error').text()).toContain('Deliveries may not go to this address')
    expect(page.find('#webhook-new-url').attributes('aria-invalid')).toBe('true')
    // on the field the refusal is about, whose description reads it out
    await vi.waitFor(() => expect(document.activeElement?.id).toBe('webhook-new-url'))
  })

  it("keeps a new endpoint's secret on the page when the list cannot be read again after it, and says the failure", async () => {
    answerInTurn('GET', '/api/admin/webhooks', [{ status: 200, body: list([]) }, { status: 503, body: { ok: false, code: 'service_unavailable', error: 'Unavailable' } }])
    answer('POST', '/api/admin/webhooks', 200, { ok: true, data: { endpoint: endpoint({ enabled: true, disabledReason: null }), secret: 'whsec_a2VlcA' } })
    const page = await mountPage()
    await page.find('#webhook-add').trigger('click')
    await page.find('#webhook-new-url').setValue('https://crm.example.com/in')
    await page.find('#webhook-new-type-0').setValue(true)
    await page.find('#webhook-new').trigger('submit')
    await vi.waitFor(() => expect(page.find('[role="alert"]').exists()).toBe(true))
    expect((page.find('#webhook-secret').element as HTMLInputElement).value).toBe('whsec_a2VlcA')
    expect(page.find('[role="alert"]').text()).toBe('The service is unavailable for a moment. Please try again shortly.')
  })

  it('edits an endpoint keeping a pattern given by API, and switches it on again', async () => {
    answer('GET', '/api/admin/webhooks', 200, list([endpoint({ eventTypes: ['user.*', 'session.created'] })]))
    const updated = answer('POST', `/api/admin/webhooks/${ID}/update`, 200, { ok: true, data: { endpoint: endpoint({ enabled: true, disabledReason: null }) } })
    const page = await mountPage()
    await page.find(`#webhook-edit-button-${ID}`).trigger('click')
    const form = `#webhook-edit-${ID}`
    expect((page.find(`${form}-url`).element as HTMLInputElement).value).toBe('https://crm.example.com/in')
    const checked = page.findAll(`${form} input[type="checkbox"]`).filter((box) => (box.element as HTMLInputElement).checked)
    expect(checked.map((box) => (box.element as HTMLInputElement).value)).toEqual(['session.created', 'user.*'])
    await page.find(`${form}-enabled`).setValue(true)
    await page.find(form).trigger('submit')
    await vi.waitFor(() => expect(updated.bodies).toHaveLength(1))
    expect(updated.bodies[0]).toEqual({ url: 'https://crm.example.com/in', description: 'CRM', eventTypes: ['user.*', 'session.created'], enabled: true })
    await vi.waitFor(() => expect(page.find('[role="status"]').text()).toBe('The endpoint was saved.'))
  })

  it('removes an endpoint only after the confirmation in place', async () => {
    answerInTurn('GET', '/api/admin/webhooks', [{ status: 200, body: list([endpoint()]) }, { status: 200, body: list([]) }])
    const deleted = answer('POST', `/api/admin/webhooks/${ID}/delete`, 200, { ok: true, data: { deleted: true } })
    const page = await mountPage()
    await page.find(`#webhook-delete-${ID}`).trigger('click')
    expect(page.find(`#webhook-confirm-${ID}`).text()).toContain('Remove the endpoint https://crm.example.com/in')
    expect(deleted.bodies).toEqual([])
    await page.find(`#webhook-confirm-${ID} button.danger`).trigger('click')
    await vi.waitFor(() => expect(page.find('[role="status"]').exists()).toBe(true))
    expect(deleted.bodies).toHaveLength(1)
    expect(page.find('[role="status"]').text()).toBe('The endpoint was removed.')
  })

  it('shows the recent deliveries with Send again on a failed one only', async () => {
    answer('GET', '/api/admin/webhooks', 200, list([endpoint({ enabled: true, disabledReason: null })]))
    const delivery = (id: number, status: string, log: unknown[]) => ({ id, msgId: `msg_${id}`, eventType: 'user.created', status, attempts: log.length, nextAttemptAt: null, deliveredAt: null, createdAt: NOW, payload: {}, log })
    answer('GET', `/api/admin/webhooks/${ID}/deliveries`, 200, {
      ok: true,
      data: { deliveries: [delivery(7, 'dead', [{ at: NOW, status: 500, durationMs: 3, error: null, responseExcerpt: null }]), delivery(6, 'delivered', [{ at: NOW, status: 200, durationMs: 3, error: null, responseExcerpt: null }])] },
    })
    const replayed = answer('POST', `/api/admin/webhooks/${ID}/deliveries/7/replay`, 200, { ok: true, data: { replayed: 1 } })
    const page = await mountPage()
    await page.find(`#webhook-deliveries-button-${ID}`).trigger('click')
    await vi.waitFor(() => expect(page.find(`[data-testid="webhook-deliveries-${ID}-list"]`).exists()).toBe(true))
    const rows = page.findAll(`[data-testid="webhook-deliveries-${ID}-list"] li`)
    expect(rows[0]!.text()).toContain('failed · 1 attempt · last answer: 500')
    expect(rows[0]!.find('button').exists()).toBe(true)
    expect(rows[1]!.find('button').exists()).toBe(false)
    await rows[0]!.find('button').trigger('click')
    await vi.waitFor(() => expect(replayed.bodies).toHaveLength(1))
    await vi.waitFor(() => expect(page.find('[role="status"]').text()).toBe('The delivery is being sent again.'))
  })
  it('sends a time range again only after the confirmation that names it, and says how many went', async () => {
    answer('GET', '/api/admin/webhooks', 200, list([endpoint()]))
    const replayed = answer('POST', `/api/admin/webhooks/${ID}/replay`, 200, { ok: true, data: { replayed: 3 } })
    const page = await mountPage()
    await page.find(`#webhook-range-button-${ID}`).trigger('click')
    const form = `#webhook-range-${ID}`
    expect(document.activeElement?.id).toBe(`webhook-range-${ID}-since`)
    // no start, then an end before the start: said at the field, nothing sent
    await page.find(form).trigger('submit')
    expect(page.find(`${form}-since-error`).text()).toBe('Enter when the range starts.')
    await page.find(`${form}-since`).setValue('2026-01-02T10:00')
    await page.find(`${form}-until`).setValue('2026-01-02T09:00')
    await page.find(form).trigger('submit')
    expect(page.find(`${form}-until-error`).text()).toBe('The end must come after the start.')
    expect(replayed.bodies).toEqual([])

    await page.find(`${form}-until`).setValue('2026-01-02T12:30')
    await page.find(`${form}-delivered`).setValue(true)
    await page.find(form).trigger('submit')
    const question = page.find(`#webhook-range-${ID}-confirm`)
    expect(question.text()).toContain('Send again to https://crm.example.com/in every delivery made from')
    expect(question.text()).toContain('the delivered ones too')
    expect(replayed.bodies).toEqual([])
    await question.find('button.danger').trigger('click')
    await vi.waitFor(() => expect(replayed.bodies).toHaveLength(1))
    // datetime-local is read in the browser's zone and sent as an instant
    expect(replayed.bodies[0]).toEqual({ since: new Date('2026-01-02T10:00').toISOString(), until: new Date('2026-01-02T12:30').toISOString(), delivered: true })
    await vi.waitFor(() => expect(page.find('[role="status"]').text()).toBe('3 deliveries queued again.'))
    expect(page.find(form).exists()).toBe(false)
  })

  it('sends a confirmed time range once, however often Confirm is pressed while it goes', async () => {
    answer('GET', '/api/admin/webhooks', 200, list([endpoint()]))
    const gate = held()
    const replayed = answer('POST', `/api/admin/webhooks/${ID}/replay`, 200, { ok: true, data: { replayed: 2 } }, gate.gate)
    const page = await mountPage()
    await page.find(`#webhook-range-button-${ID}`).trigger('click')
    await page.find(`#webhook-range-${ID}-since`).setValue('2026-01-02T10:00')
    await page.find(`#webhook-range-${ID}`).trigger('submit')
    const confirm = () => page.find(`#webhook-range-${ID}-confirm button.danger`)
    await confirm().trigger('click')
    await vi.waitFor(() => expect(confirm().attributes('disabled')).toBeDefined())
    await confirm().trigger('click')
    gate.release()
    await vi.waitFor(() => expect(page.find('[role="status"]').text()).toBe('2 deliveries queued again.'))
    expect(replayed.bodies).toHaveLength(1)
  })

  it('sends the failed deliveries since a moment up to now without an end, and says when none matched', async () => {
    answer('GET', '/api/admin/webhooks', 200, list([endpoint()]))
    const replayed = answer('POST', `/api/admin/webhooks/${ID}/replay`, 200, { ok: true, data: { replayed: 0 } })
    const page = await mountPage()
    await page.find(`#webhook-range-button-${ID}`).trigger('click')
    await page.find(`#webhook-range-${ID}-since`).setValue('2026-01-02T10:00')
    await page.find(`#webhook-range-${ID}`).trigger('submit')
    expect(page.find(`#webhook-range-${ID}-confirm`).text()).toMatch(/every failed delivery made from .* until now\?/)
    await page.find(`#webhook-range-${ID}-confirm button.danger`).trigger('click')
    await vi.waitFor(() => expect(replayed.bodies).toHaveLength(1))
    expect(replayed.bodies[0]).toEqual({ since: new Date('2026-01-02T10:00').toISOString(), delivered: false })
    await vi.waitFor(() => expect(page.find('[role="status"]').text()).toBe('Nothing was sent again: no delivery of that range matched.'))
  })

  it('says a range field the server refuses at that field, and keeps the form open', async () => {
    answer('GET', '/api/admin/webhooks', 200, list([endpoint()]))
    const replayed = answer('POST', `/api/admin/webhooks/${ID}/replay`, 400, { ok: false, error: 'Please check the highlighted fields.', code: 'validation_failed', fields: { until: 'until: after since' } })
    const page = await mountPage()
    await page.find(`#webhook-range-button-${ID}`).trigger('click')
    await page.find(`#webhook-range-${ID}-since`).setValue('2026-01-02T10:00')
    await page.find(`#webhook-range-${ID}-until`).setValue('2026-01-02T11:00')
    await page.find(`#webhook-range-${ID}`).trigger('submit')
    await page.find(`#webhook-range-${ID}-confirm button.danger`).trigger('click')
    await vi.waitFor(() => expect(page.find(`#webhook-range-${ID}-until-error`).exists()).toBe(true))
    expect(replayed.bodies).toHaveLength(1)
    expect(page.find(`#webhook-range-${ID}-until-error`).text()).toBe('The end must come after the start.')
    expect(page.find(`#webhook-range-${ID}-until`).attributes('aria-invalid')).toBe('true')
    expect(page.find('[role="alert"]').exists()).toBe(false)
  })
})
