/**
 * The enterprise sign-in section of an organization (OrgDomains, OrgSso, OrgScim): the TXT record
 * of a pending domain with its copy buttons, each refusal said by its code, removals and token
 * rotation confirmed in place; the SAML form checks what it sends and shows the IAM's refusals at
 * their fields; the SCIM token shown once and the provisioning log revealed twenty rows at a time.
 */
import { mountSuspended } from '@nuxt/test-utils/runtime'
import { afterEach, describe, expect, it, vi } from 'vitest'
import OrgDomains from '../../components/OrgDomains.vue'
import OrgScim from '../../components/OrgScim.vue'
import OrgSso from '../../components/OrgSso.vue'
import { answer, answerInTurn } from './bff'

const NOW = '2026-01-02T03:04:05.000Z'
const OWNER = ['organization:read', 'organization:delete', 'members:read', 'members:manage', 'owners:manage', 'invitations:read', 'invitations:manage', 'roles:read', 'roles:manage']
const org = (permissions = OWNER) => ({ id: 'o-1', slug: 'acme', name: 'Acme', createdAt: NOW, role: 'owner', roleName: 'owner', permissions })
const D1 = '11111111-1111-4111-8111-111111111111'
const D2 = '22222222-2222-4222-8222-222222222222'
const domain = (id: string, name: string, verified: boolean) => ({
  id,
  domain: name,
  verified,
  verifiedAt: verified ? NOW : null,
  createdAt: NOW,
  txt: { name: `_identity-platform.${name}`, apex: name, value: `identity-platform-verification=token-of-${name}` },
})
const connection = (over: Record<string, unknown> = {}) => ({
  id: 'c-1',
  idpEntityId: 'https://idp.example.com/entity',
  idpSsoUrl: 'https://idp.example.com/sso',
  idpCertificates: [{ subject: 'CN=idp.example.com', notAfter: '2030-01-01T00:00:00.000Z', fingerprint: 'AB:CD:EF' }],
  defaultRole: 'member',
  attributeMapping: { groups: 'groups', groupRoles: { engineering: 'admin' } },
  allowIdpInitiated: false,
  enabled: true,
  requireSso: false,
  sp: { entityId: 'https://id.example.com/sso/saml/c-1/metadata', acsUrl: 'https://id.example.com/sso/saml/c-1/acs', metadataUrl: 'https://id.example.com/sso/saml/c-1/metadata' },
  updatedAt: NOW,
  ...over,
})

const mounted: Array<{ unmount(): void }> = []
afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.unmount()
  clearNuxtState()
})

async function mountDomains(domains = [domain(D1, 'acme.example', false), domain(D2, 'rockets.example', true)]) {
  answer('GET', '/api/orgs/o-1/domains', 200, { ok: true, data: { domains } })
  // attached to the document: the confirmation moves focus, which a detached tree cannot hold
  const section = await mountSuspended(OrgDomains, { props: { org: org() }, attachTo: document.body })
  mounted.push(section)
  await vi.waitFor(() => expect(section.find('[data-testid="org-domains"]').exists()).toBe(true))
  return section
}

describe('the verified domains', () => {
  it('shows the TXT record of a pending domain with a copy button named by what it copies, and none for a verified one', async () => {
    const section = await mountDomains()
    expect(section.find(`#domain-txt-name-${D1}`).text()).toBe('_identity-platform.acme.example')
    expect(section.find(`#domain-txt-value-${D1}`).text()).toBe('identity-platform-verification=token-of-acme.example')
    expect(section.findAll('.copy-value button').map((b) => b.text())).toEqual(['Copy Record name', 'Copy Record value'])
    expect(section.text()).toContain('pending: waiting for the DNS record')
    expect(section.find(`#domain-txt-name-${D2}`).exists()).toBe(false)
    expect(section.find(`#domain-verify-${D2}`).exists()).toBe(false)
    expect(section.find(`#domain-verify-${D1}`).attributes('aria-label')).toBe('Check the DNS record of acme.example now')
  })

  it('says that the record was not found yet and that DNS takes time when the check answers domain_record_missing', async () => {
    const verify = answer('POST', '/api/orgs/o-1/domains/verify', 409, { ok: false, code: 'domain_record_missing', error: 'No TXT record' })
    const section = await mountDomains()
    await section.find(`#domain-verify-${D1}`).trigger('click')
    await vi.waitFor(() => expect(section.find('[role="alert"]').exists()).toBe(true))
    expect(section.find('[role="alert"]').text()).toBe(
      'The TXT record of acme.example was not found at _identity-platform.acme.example yet. DNS changes can take from a few minutes to a day to appear: check the record at your DNS host and try again later.',
    )
    expect(verify.bodies).toEqual([{ domainId: D1 }])
  })

  it('says that DNS could not be asked when the check answers dns_unavailable, and that the domain is verified when it passes', async () => {
    answerInTurn('POST', '/api/orgs/o-1/domains/verify', [
      { status: 503, body: { ok: false, code: 'dns_unavailable' } },
      { status: 200, body: { ok: true, data: { domain: domain(D1, 'acme.example', true) } } },
    ])
    const section = await mountDomains()
    await section.find(`#domain-verify-${D1}`).trigger('click')
    await vi.waitFor(() => expect(section.find('[role="alert"]').text()).toBe('DNS could not be asked just now. Nothing was changed; try again in a few minutes.'))
    await section.find(`#domain-verify-${D1}`).trigger('click')
    await vi.waitFor(() => expect(section.find('[role="status"].alert').text()).toBe('acme.example is verified.'))
    expect(section.find('[role="alert"]').exists()).toBe(false)
  })

  it('shows a refused claim at the field by its code and sends nothing for an empty one', async () => {
    const add = answer('POST', '/api/orgs/o-1/domains', 400, { ok: false, code: 'domain_public_suffix', error: 'A public suffix' })
    const section = await mountDomains()
    await section.find('form.add').trigger('submit')
    expect(section.find('#domain-name-error').text()).toBe('Enter the domain, like example.com.')
    expect(add.bodies).toEqual([])

    await section.find('input#domain-name').setValue(' co.uk ')
    await section.find('form.add').trigger('submit')
    await vi.waitFor(() => expect(section.find('#domain-name-error').text()).toBe('co.uk is shared by many owners and cannot be claimed. Enter your own domain under it.'))
    expect(section.find('input#domain-name').attributes('aria-invalid')).toBe('true')
    await vi.waitFor(() => expect(document.activeElement?.id).toBe('domain-name'))
    expect(add.bodies).toEqual([{ domain: 'co.uk' }])
  })

  it('asks before removing a domain, with focus on Cancel, Escape keeps it, and Confirm removes it and says what that means', async () => {
    const removed = answer('POST', '/api/orgs/o-1/domains/remove', 200, { ok: true, data: { removed: true } })
    const section = await mountDomains()
    await section.find(`#domain-remove-${D2}`).trigger('click')
    await vi.waitFor(() => expect(section.find(`#domain-confirm-${D2}`).exists()).toBe(true))
    expect(section.find(`#domain-confirm-${D2}-question`).text()).toBe('Remove rockets.example? Its addresses will no longer sign in through your identity provider.')
    await vi.waitFor(() => expect(document.activeElement?.textContent?.trim()).toBe('Cancel'))
    // Escape keeps the domain and gives focus back to Remove, as a keyboard user expects
    await section.find(`#domain-confirm-${D2}`).trigger('keydown', { key: 'Escape' })
    await vi.waitFor(() => expect(document.activeElement?.id).toBe(`domain-remove-${D2}`))
    expect(section.find(`#domain-confirm-${D2}`).exists()).toBe(false)
    expect(removed.bodies).toEqual([])
    await section.find(`#domain-remove-${D2}`).trigger('click')
    await vi.waitFor(() => expect(section.find(`#domain-confirm-${D2}`).exists()).toBe(true))
    await section.findAll(`#domain-confirm-${D2} button`).find((b) => b.text() === 'Confirm')!.trigger('click')
    await vi.waitFor(() => expect(section.text()).toContain('rockets.example was removed. Its addresses no longer sign in through your identity provider.'))
    expect(removed.bodies).toEqual([{ domainId: D2 }])
  })
})

async function mountSso(current: ReturnType<typeof connection> | null) {
  answer('GET', '/api/orgs/o-1/sso', 200, { ok: true, data: { connection: current } })
  const section = await mountSuspended(OrgSso, { props: { org: org(), roles: [{ id: 'r-1', name: 'Auditors', permissions: ['members:read'] }] }, attachTo: document.body })
  mounted.push(section)
  await vi.waitFor(() => expect(section.find('form.set').exists()).toBe(true))
  return section
}

describe('the SAML connection', () => {
  it('shows what to enter at the identity provider, the certificate, the group mapping and a test sign-in that comes back to the organization', async () => {
    const section = await mountSso(connection())
    expect(section.find('#sso-sp-acs').text()).toBe('https://id.example.com/sso/saml/c-1/acs')
    expect(section.find('#sso-sp-entity').text()).toBe('https://id.example.com/sso/saml/c-1/metadata')
    expect(section.find('#sso-sp-metadata').text()).toBe('https://id.example.com/sso/saml/c-1/metadata')
    expect(section.find('[data-testid="org-sso"]').text()).toContain('AB:CD:EF')
    expect(section.find('[data-testid="org-sso"]').text()).toContain('group engineering: Admin')
    expect(section.find('[data-testid="sso-test"]').attributes('href')).toBe('/sso/saml/c-1/start?returnTo=%2Forgs%2Fo-1')
  })

  it('offers no test sign-in while the connection is off, as its start answers not found then', async () => {
    const section = await mountSso(connection({ enabled: false }))
    expect(section.find('[data-testid="sso-test"]').exists()).toBe(false)
    expect(section.text()).toContain('Turn the connection on to test it.')
  })

  it('never offers the owner role for the first sign-in or a group', async () => {
    const section = await mountSso(null)
    const offered = section.findAll('#sso-default-role option').map((o) => o.attributes('value'))
    expect(offered).toEqual(['member', 'admin', 'r-1'])
  })

  it('asks for the metadata before sending, and sends the pasted XML with the settings', async () => {
    const saved = answer('POST', '/api/orgs/o-1/sso', 200, { ok: true, data: { connection: connection({ enabled: false }) } })
    const section = await mountSso(null)
    await section.find('form.set').trigger('submit')
    expect(section.find('#sso-xml-error').text()).toBe('Choose the metadata file or paste the XML.')
    expect(section.find('textarea#sso-xml').attributes('aria-invalid')).toBe('true')
    expect(saved.bodies).toEqual([])

    await section.find('textarea#sso-xml').setValue('<EntityDescriptor/>')
    await section.find('#sso-default-role').setValue('admin')
    await section.find('#sso-enabled').setValue(true)
    await section.find('form.set').trigger('submit')
    await vi.waitFor(() => expect(section.text()).toContain('The connection was saved.'))
    expect(saved.bodies).toEqual([{ idpMetadataXml: '<EntityDescriptor/>', defaultRole: 'admin', attributeMapping: {}, enabled: true, requireSso: false, allowIdpInitiated: false }])
  })

  it('shows a certificate the IAM could not read at the certificate field, and sends the typed values with the group mapping', async () => {
    const saved = answer('POST', '/api/orgs/o-1/sso', 400, { ok: false, code: 'saml_certificate_invalid', error: 'Not a certificate' })
    const section = await mountSso(connection())
    // an existing connection is shown as its typed values; the certificate is never answered back
    expect((section.find('input#sso-entity-id').element as HTMLInputElement).value).toBe('https://idp.example.com/entity')
    expect((section.find('textarea#sso-certificate').element as HTMLTextAreaElement).value).toBe('')
    await section.find('form.set').trigger('submit')
    expect(section.find('#sso-certificate-error').text()).toBe("Paste the identity provider's signing certificate.")
    expect(saved.bodies).toEqual([])

    await section.find('textarea#sso-certificate').setValue('not a certificate')
    await section.find('form.set').trigger('submit')
    await vi.waitFor(() => expect(section.find('#sso-certificate-error').text()).toBe('This is not a certificate. Paste the signing certificate as PEM (BEGIN CERTIFICATE) or as base64.'))
    await vi.waitFor(() => expect(document.activeElement?.id).toBe('sso-certificate'))
    expect(saved.bodies).toEqual([
      {
        idpEntityId: 'https://idp.example.com/entity',
        idpSsoUrl: 'https://idp.example.com/sso',
        idpCertificate: 'not a certificate',
        defaultRole: 'member',
        attributeMapping: { groups: 'groups', groupRoles: { engineering: 'admin' } },
        enabled: true,
        requireSso: false,
        allowIdpInitiated: false,
      },
    ])
  })

  it('shows the email and name attributes the connection reads and sends what the owner types, leaving out one emptied', async () => {
    const saved = answer('POST', '/api/orgs/o-1/sso', 200, { ok: true, data: { connection: connection() } })
    const section = await mountSso(connection({ attributeMapping: { email: 'mailPrimary', name: 'fullName' } }))
    expect((section.find('input#sso-email-attribute').element as HTMLInputElement).value).toBe('mailPrimary')
    expect((section.find('input#sso-name-attribute').element as HTMLInputElement).value).toBe('fullName')
    await section.find('input#sso-email-attribute').setValue(' upn ')
    await section.find('input#sso-name-attribute').setValue('')
    await section.find('textarea#sso-certificate').setValue('MIIB')
    await section.find('form.set').trigger('submit')
    await vi.waitFor(() => expect(saved.bodies).toHaveLength(1))
    expect((saved.bodies[0] as { attributeMapping: unknown }).attributeMapping).toEqual({ email: 'upn' })
  })

  it('asks for a name for each group row before sending', async () => {
    const saved = answer('POST', '/api/orgs/o-1/sso', 200, { ok: true, data: { connection: connection() } })
    const section = await mountSso(null)
    await section.find('textarea#sso-xml').setValue('<EntityDescriptor/>')
    await section.find('#sso-group-add').trigger('click')
    await section.find('form.set').trigger('submit')
    expect(section.find('#sso-group-add-error').text()).toBe('Enter a name for each group, or remove the empty rows.')
    expect(saved.bodies).toEqual([])
  })
})

const event = (id: number, action: string, target: string | null = null) => ({ id, at: NOW, action, target, details: {} })

async function mountScim(current: Record<string, unknown> | null, events: ReturnType<typeof event>[]) {
  answer('GET', '/api/orgs/o-1/scim', 200, { ok: true, data: { connection: current } })
  const log = answer('GET', '/api/orgs/o-1/scim/events', 200, { ok: true, data: { events } })
  const section = await mountSuspended(OrgScim, { props: { org: org() }, attachTo: document.body })
  mounted.push(section)
  await vi.waitFor(() => expect(section.find('#scim-log-heading').exists()).toBe(true))
  await vi.waitFor(() => expect(section.find('p[role="status"]').exists()).toBe(false))
  return { section, log }
}

describe('the SCIM provisioning', () => {
  it('shows the base URL on the page origin and creates the token shown once, then reads the log again', async () => {
    const hint = { hint: 'wxyz', createdAt: NOW, rotatedAt: null, lastUsedAt: null }
    const created = answer('POST', '/api/orgs/o-1/scim/token', 201, { ok: true, data: { token: 'scim_secret-token-wxyz', connection: hint } })
    const { section, log } = await mountScim(null, [])
    expect(section.find('#scim-base-url').text()).toBe(`${window.location.origin}/scim/v2`)
    expect(section.text()).toContain('No SCIM token yet: provisioning is off.')
    await section.find('#scim-create').trigger('click')
    await vi.waitFor(() => expect(section.find('#raw-heading').text()).toBe('Your new SCIM token'))
    expect((section.find('input#raw-token').element as HTMLInputElement).value).toBe('scim_secret-token-wxyz')
    expect(section.find('[data-testid="org-scim"]').text()).toContain('…wxyz')
    expect(created.bodies).toHaveLength(1)
    expect(log.bodies).toHaveLength(2)

    await section.findAll('button').find((b) => b.text() === 'I have saved it')!.trigger('click')
    await vi.waitFor(() => expect(section.find('input#raw-token').exists()).toBe(false))
  })

  it('asks before rotating, since the current token stops at once, and shows the new one', async () => {
    const current = { hint: 'abcd', createdAt: NOW, rotatedAt: null, lastUsedAt: NOW }
    const rotated = answer('POST', '/api/orgs/o-1/scim/token/rotate', 200, { ok: true, data: { token: 'scim_new-token-efgh', connection: { ...current, hint: 'efgh', rotatedAt: NOW } } })
    const { section } = await mountScim(current, [event(1, 'token.created')])
    await section.find('#scim-rotate').trigger('click')
    await vi.waitFor(() => expect(section.find('#scim-rotate-confirm').exists()).toBe(true))
    expect(rotated.bodies).toEqual([])
    await section.findAll('#scim-rotate-confirm button').find((b) => b.text() === 'Cancel')!.trigger('click')
    await vi.waitFor(() => expect(document.activeElement?.id).toBe('scim-rotate'))

    await section.find('#scim-rotate').trigger('click')
    await vi.waitFor(() => expect(section.find('#scim-rotate-confirm').exists()).toBe(true))
    await section.findAll('#scim-rotate-confirm button').find((b) => b.text() === 'Confirm')!.trigger('click')
    await vi.waitFor(() => expect(section.find('#raw-heading').text()).toBe('Your new SCIM token (the old one no longer works)'))
    expect(rotated.bodies).toHaveLength(1)
  })

  it('revokes after a confirmation and says provisioning stopped', async () => {
    const revoked = answer('POST', '/api/orgs/o-1/scim/token/revoke', 200, { ok: true, data: { revoked: true } })
    const { section } = await mountScim({ hint: 'abcd', createdAt: NOW, rotatedAt: null, lastUsedAt: null }, [])
    await section.find('#scim-revoke').trigger('click')
    await vi.waitFor(() => expect(section.find('#scim-revoke-confirm-question').text()).toBe('Revoke the SCIM token? Provisioning stops at once.'))
    await section.findAll('#scim-revoke-confirm button').find((b) => b.text() === 'Confirm')!.trigger('click')
    await vi.waitFor(() => expect(section.text()).toContain('The SCIM token was revoked. Provisioning has stopped.'))
    expect(revoked.bodies).toHaveLength(1)
  })

  it('shows twenty log rows in words, then twenty more on Show more, and an unknown action as it came', async () => {
    const events = Array.from({ length: 25 }, (_, i) => event(100 - i, i === 0 ? 'user.deactivated' : i === 1 ? 'user.renamed' : 'group.member_added', `t-${i}`))
    const { section } = await mountScim({ hint: 'abcd', createdAt: NOW, rotatedAt: null, lastUsedAt: null }, events)
    const rows = () => section.findAll('[data-testid="org-scim-log"] li')
    expect(rows()).toHaveLength(20)
    expect(rows()[0]!.find('.action').text()).toBe('Person deactivated')
    expect(rows()[1]!.find('.action').text()).toBe('user.renamed')
    expect(rows()[2]!.find('.action').text()).toBe('Added to a group')
    expect(section.text()).toContain('Showing 20 of 25')
    await section.findAll('button').find((b) => b.text() === 'Show more')!.trigger('click')
    await vi.waitFor(() => expect(rows()).toHaveLength(25))
    await vi.waitFor(() => expect(document.activeElement?.id).toBe('scim-event-80'))
    expect(section.findAll('button').some((b) => b.text() === 'Show more')).toBe(false)
  })
})

describe('the organization page', () => {
  const ADMIN = ['organization:read', 'members:read', 'members:manage', 'invitations:read', 'invitations:manage', 'roles:read', 'roles:manage']

  async function orgPage(permissions: string[], route = '/orgs/o-1') {
    answer('GET', '/api/auth/session', 200, { authenticated: true, userId: 'u-1', email: 'ada@example.com', emailVerified: true, name: 'Ada', roles: [] })
    answer('GET', '/api/orgs/o-1', 200, { ok: true, data: { org: { ...org(permissions), role: permissions === OWNER ? 'owner' : 'admin', roleName: permissions === OWNER ? 'owner' : 'admin' } } })
    answer('GET', '/api/orgs/o-1/roles', 200, { ok: true, data: { roles: [] } })
    answer('GET', '/api/orgs/o-1/members', 200, { ok: true, data: { members: [] } })
    answer('GET', '/api/orgs/o-1/invitations', 200, { ok: true, data: { invitations: [] } })
    const domains = answer('GET', '/api/orgs/o-1/domains', 200, { ok: true, data: { domains: [] } })
    answer('GET', '/api/orgs/o-1/sso', 200, { ok: true, data: { connection: null } })
    const scim = answer('GET', '/api/orgs/o-1/scim', 200, { ok: true, data: { connection: null } })
    answer('GET', '/api/orgs/o-1/scim/events', 200, { ok: true, data: { events: [] } })
    const webhooks = answer('GET', '/api/orgs/o-1/webhooks', 200, { ok: true, data: { endpoints: [], catalogueVersion: '2026-11-30' } })
    const { default: OrgPage } = await import('../../pages/orgs/[orgId].vue')
    // attached to the document: a link to a section finds it there
    const page = await mountSuspended(OrgPage, { route, attachTo: document.body })
    mounted.push(page)
    await vi.waitFor(() => expect(page.find('#leave-delete').exists()).toBe(true))
    return { page, domains, scim, webhooks }
  }

  it('shows the enterprise sign-in section to an owner, with its link among the sections', async () => {
    const { page } = await orgPage(OWNER)
    await vi.waitFor(() => expect(page.find('#enterprise [data-testid="org-sso"], #enterprise form.set').exists()).toBe(true))
    expect(page.find('#enterprise-heading').text()).toBe('Enterprise sign-in')
    expect(page.findAll('nav.sections a').map((a) => a.attributes('href'))).toContain('#enterprise')
  })

  it("shows an owner the organization's webhooks, with its link among the sections (the IAM's mail links to #webhooks)", async () => {
    const { page, webhooks } = await orgPage(OWNER)
    await vi.waitFor(() => expect(page.find('#webhooks #webhook-add').exists()).toBe(true))
    expect(page.find('#webhooks-heading').text()).toBe('Webhooks')
    expect(page.find('#webhooks').text()).toContain('about this organization alone')
    expect(page.findAll('nav.sections a').map((a) => a.attributes('href'))).toContain('#webhooks')
    expect(webhooks.bodies).toHaveLength(1)
  })

  it('brings a link to a section into view once the sections are there', async () => {
    const scrolled = vi.spyOn(Element.prototype, 'scrollIntoView')
    await orgPage(OWNER, '/orgs/o-1#webhooks')
    await vi.waitFor(() => expect(scrolled.mock.contexts.map((el) => (el as Element).id)).toContain('webhooks'))
    scrolled.mockRestore()
  })

  it('shows no enterprise sign-in or webhooks section to an admin and asks nothing about them', async () => {
    const { page, domains, scim, webhooks } = await orgPage(ADMIN)
    expect(page.find('#members').exists()).toBe(true)
    expect(page.find('#enterprise').exists()).toBe(false)
    expect(page.findAll('nav.sections a').map((a) => a.attributes('href'))).not.toContain('#enterprise')
    expect(domains.bodies).toEqual([])
    expect(scim.bodies).toEqual([])
    expect(page.find('#webhooks').exists()).toBe(false)
    expect(page.findAll('nav.sections a').map((a) => a.attributes('href'))).not.toContain('#webhooks')
    expect(webhooks.bodies).toEqual([])
  })
})
