/**
 * Organizations in Chromium, two people in two browsers: the owner creates an organization on
 * /orgs (the slug suggested from the name) and invites a second address; the invited person opens
 * the mailed link, creates an account from the landing page (the address filled in, and confirmed
 * by the invitation: no second mail) and comes back to it, accepts in one click; the owner makes them an admin; they switch to the organization in the header,
 * and the session's access token then carries the organization with the new role. The pages are
 * axe clean and fit a 390 px screen.
 */
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { saveScreenshot, type Browser } from '../helpers/browser'
import { advanceClock, CLOCK_ENV } from '../helpers/clock'
import { ORGANIZATION_WEBHOOK_TYPES } from '../../iam/contract/webhook-events'
import { confirmEmailInBrowser, freshEmail, hmac, mailTo, PASSWORD, passwordMeterSettled, seriousA11yViolations, signUpInBrowser, useE2eStack, WAIT, watchCsp } from './auth-stack'

const ownerEmail = freshEmail('owner')
const e2e = useE2eStack(
  {
    iamEnv: CLOCK_ENV,
    // the gateway signs with the real time while the IAM's clock runs ahead (the last test moves it)
    iamConfig: () => ({
      service: { Hmac: { ...hmac, maxClockSkew: 60 * 60_000 }, proxy: { trust: true, ipToTrust: '127.0.0.1' } },
      // an owner's webhook endpoint names this machine's 127.0.0.2, where nothing listens: the walk only adds it
      webhooks: { organizationAllowAddresses: ['127.0.0.2/32'] },
    }),
  },
  { browsers: ['owner', 'invited'] },
)

const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)

/** The `org` claim of the access token in the browser's HttpOnly cookie, read through the test's own cookie access. */
async function orgClaim(browser: Browser): Promise<Record<string, unknown> | null> {
  const cookie = (await browser.context.cookies(e2e.stack.url)).find((c) => c.name === '__Secure-a')
  expect(cookie).toBeTruthy()
  const payload = JSON.parse(Buffer.from(cookie!.value.split('.')[1]!, 'base64url').toString('utf8')) as { org?: Record<string, unknown> }
  return payload.org ?? null
}

/** The link in the invitation mail to `email`, opened on the origin the tests browse. */
async function invitationLink(email: string): Promise<string> {
  const mail = await mailTo(e2e.stack.smtp, email, '/orgs/invitations/accept?token=')
  return /(https?:\/\/\S+\/orgs\/invitations\/accept\?token=[A-Za-z0-9_-]+)/.exec(mail.text ?? '')![1]!
}

async function axeClean(page: Page): Promise<void> {
  await expect.poll(() => page.getByRole('status').filter({ hasText: /^Loading/ }).count(), WAIT).toBe(0)
  expect(await seriousA11yViolations(page)).toEqual([])
}

describe('organizations in the browser', () => {
  it('create, invite, sign up from the landing page and accept, change the role, switch in the header', async () => {
    // the owner creates the organization: the slug follows the name
    const ownerPage = await e2e.browsers.owner.newPage()
    const ownerCsp = watchCsp(ownerPage)
    await signUpInBrowser(ownerPage, e2e.stack.url, ownerEmail)
    await ownerPage.goto(`${e2e.stack.url}/orgs`)
    await expect.poll(() => ownerPage.getByText('You are not a member of any organization yet.').isVisible(), WAIT).toBe(true)
    await axeClean(ownerPage)
    await ownerPage.getByLabel('Name', { exact: true }).fill('Acme Rockets & Co')
    expect(await ownerPage.getByLabel('Slug').inputValue()).toBe('acme-rockets-co')
    await ownerPage.getByRole('button', { name: 'Create organization' }).click()
    await ownerPage.waitForURL(/\/orgs\/[0-9a-f-]{36}\?created=1$/)
    const orgId = /\/orgs\/([0-9a-f-]{36})/.exec(ownerPage.url())![1]!
    await expect.poll(() => ownerPage.getByText('Acme Rockets & Co was created. You are its owner.').isVisible(), WAIT).toBe(true)

    // a second organization with the same slug is refused beside the field, in words
    await ownerPage.goto(`${e2e.stack.url}/orgs`)
    await ownerPage.getByLabel('Name', { exact: true }).fill('Acme Rockets Co')
    await ownerPage.getByRole('button', { name: 'Create organization' }).click()
    await expect.poll(() => ownerPage.getByText('The slug “acme-rockets-co” is taken by another organization.', { exact: false }).isVisible(), WAIT).toBe(true)

    // invite the second person as a member
    const invitedEmail = freshEmail('invited')
    await ownerPage.goto(`${e2e.stack.url}/orgs/${orgId}`)
    await ownerPage.getByLabel('Email address to invite').fill(invitedEmail)
    await ownerPage.getByRole('button', { name: 'Send invitation' }).click()
    await expect.poll(() => ownerPage.getByText(`Invitation sent to ${invitedEmail}.`, { exact: false }).isVisible(), WAIT).toBe(true)
    await expect.poll(() => ownerPage.getByTestId('org-invitations').textContent(), WAIT).toContain(invitedEmail)
    await axeClean(ownerPage)

    // the invited person: the landing page signed out, then an account created from it
    const link = await invitationLink(invitedEmail)
    const page = await e2e.browsers.invited.newPage()
    const csp = watchCsp(page)
    await page.goto(link)
    // the IAM's preview: who invited which address (masked) to which organization
    await expect.poll(() => page.getByTestId('invitation-story').textContent(), WAIT).toContain('Ada Lovelace invited i***@example.com to join Acme Rockets & Co.')
    await axeClean(page)
    await page.getByRole('link', { name: 'Create account' }).last().click()
    await page.waitForURL(/\/signup\?invitation=[A-Za-z0-9_-]+&returnTo=/)
    // the invited address is filled in from the invitation (the IAM's answer for the link's token)
    await expect.poll(() => page.getByLabel('Email', { exact: true }).inputValue(), WAIT).toBe(invitedEmail)
    await page.getByLabel('Name', { exact: true }).fill('Grace Hopper')
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByLabel('Repeat the password').fill(PASSWORD)
    await passwordMeterSettled(page)
    await page.getByLabel('I accept the terms of service').check()
    await axeClean(page)
    await page.getByRole('button', { name: 'Create account' }).click()
    // back at the invitation, and one click joins: the link already proved the mailbox, so there
    // is no second confirmation to wait for
    await page.waitForURL(link)
    await page.getByRole('button', { name: 'Accept invitation' }).click()
    await expect.poll(() => page.getByText('You joined Acme Rockets & Co as Member.').isVisible(), WAIT).toBe(true)

    // the owner makes them an admin
    await ownerPage.goto(`${e2e.stack.url}/orgs/${orgId}`)
    await expect.poll(() => ownerPage.getByTestId('org-members').textContent(), WAIT).toContain('Grace Hopper')
    await ownerPage.getByLabel('Role of Grace Hopper', { exact: true }).selectOption('admin')
    await ownerPage.getByRole('button', { name: 'Change role of Grace Hopper' }).click()
    await expect.poll(() => ownerPage.getByText('Grace Hopper is now Admin.').isVisible(), WAIT).toBe(true)
    // the last owner cannot leave: said in words
    await ownerPage.getByRole('button', { name: 'Leave organization' }).click()
    await ownerPage.getByRole('group', { name: 'Leave Acme Rockets & Co?' }).getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => ownerPage.getByText('You are the last owner, so you cannot leave', { exact: false }).isVisible(), WAIT).toBe(true)
    expect(ownerCsp).toEqual([])

    // the new admin switches to the organization in the header; the token carries it with the role
    await page.goto(`${e2e.stack.url}/orgs/${orgId}`)
    await expect.poll(() => page.getByText('your role: Admin', { exact: false }).isVisible(), WAIT).toBe(true)
    expect(await orgClaim(e2e.browsers.invited)).toBeNull()
    const menuButton = page.getByRole('banner').getByRole('button', { name: /^Account menu for / })
    await menuButton.click()
    const switchTo = page.locator('#account-menu').getByRole('button', { name: /^Acme Rockets & Co/ })
    await expect.poll(() => switchTo.isVisible(), WAIT).toBe(true)
    expect(await page.getByTestId('active-org').textContent()).toBe('Personal')
    await switchTo.click()
    await expect.poll(() => page.getByTestId('active-org').textContent(), WAIT).toBe('Acme Rockets & Co')
    expect(await switchTo.getAttribute('aria-current')).toBe('true')
    expect(await orgClaim(e2e.browsers.invited)).toMatchObject({ id: orgId, slug: 'acme-rockets-co', role: 'admin' })
    expect(await seriousA11yViolations(page)).toEqual([])
    await saveScreenshot(page, 'orgs-switcher')

    // and back to acting for themselves
    await page.locator('#account-menu').getByRole('button', { name: /^Personal/ }).click()
    await expect.poll(() => page.getByTestId('active-org').textContent(), WAIT).toBe('Personal')
    expect(await orgClaim(e2e.browsers.invited)).toBeNull()

    // the used link says so, with nothing to press
    await page.goto(link)
    await expect.poll(() => page.getByText('This invitation was already used, revoked, or has expired.', { exact: false }).isVisible(), WAIT).toBe(true)
    expect(await page.getByRole('button', { name: 'Accept invitation' }).count()).toBe(0)
    expect(csp).toEqual([])

    // making an owner is asked first, in place: Escape keeps the role, the keyboard confirms
    await ownerPage.goto(`${e2e.stack.url}/orgs/${orgId}`)
    await expect.poll(() => ownerPage.getByTestId('org-members').textContent(), WAIT).toContain('Grace Hopper')
    await ownerPage.getByLabel('Role of Grace Hopper', { exact: true }).selectOption('owner')
    await ownerPage.getByRole('button', { name: 'Change role of Grace Hopper' }).click()
    const promote = ownerPage.getByRole('group', { name: /^Make Grace Hopper an owner of Acme Rockets & Co\?/ })
    await expect.poll(() => promote.isVisible(), WAIT).toBe(true)
    expect(await ownerPage.evaluate(() => document.activeElement?.textContent)).toBe('Cancel')
    await ownerPage.keyboard.press('Escape')
    await expect.poll(() => ownerPage.evaluate(() => document.activeElement?.id ?? ''), WAIT).toMatch(/^member-role-change-/)
    expect(await ownerPage.getByTestId('org-members').textContent()).toContain('Admin')
    await ownerPage.getByRole('button', { name: 'Change role of Grace Hopper' }).press('Enter')
    await expect.poll(() => promote.isVisible(), WAIT).toBe(true)
    await ownerPage.keyboard.press('Shift+Tab')
    await ownerPage.keyboard.press('Enter')
    await expect.poll(() => ownerPage.getByText('Grace Hopper is now Owner.').isVisible(), WAIT).toBe(true)
    await page.close()
    await ownerPage.close()
  })

  it('the landing page tells a signed-in person with another address what to do', async () => {
    const ownerPage = await e2e.browsers.owner.newPage()
    // a confirmed address: an unconfirmed one is first asked to confirm it (the IAM's guard)
    await ownerPage.goto(`${e2e.stack.url}/account`)
    await confirmEmailInBrowser(ownerPage, e2e.stack.smtp, ownerEmail)
    await ownerPage.goto(`${e2e.stack.url}/orgs`)
    await ownerPage.getByRole('link', { name: 'Acme Rockets & Co' }).click()
    const someoneElse = freshEmail('someone')
    await ownerPage.getByLabel('Email address to invite').fill(someoneElse)
    await ownerPage.getByRole('button', { name: 'Send invitation' }).click()
    await expect.poll(() => ownerPage.getByText(`Invitation sent to ${someoneElse}.`, { exact: false }).isVisible(), WAIT).toBe(true)
    const link = await invitationLink(someoneElse)
    // the owner's own browser opens the link meant for someone else
    await ownerPage.goto(link)
    await ownerPage.getByRole('button', { name: 'Accept invitation' }).click()
    await expect.poll(() => ownerPage.getByText('This invitation was sent to another email address', { exact: false }).isVisible(), WAIT).toBe(true)
    expect(await ownerPage.getByRole('button', { name: 'Sign out and sign in with another account' }).isVisible()).toBe(true)
    expect(await seriousA11yViolations(ownerPage)).toEqual([])
    await ownerPage.close()
  })

  it.each(['/orgs', '/orgs/:id', '/orgs/invitations/accept?token=x'])('%s fits a 390 px screen', async (path) => {
    const page = await e2e.browsers.owner.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${e2e.stack.url}/orgs`)
    await expect.poll(() => page.getByTestId('org-list').isVisible(), WAIT).toBe(true)
    const href = await page.getByRole('link', { name: 'Acme Rockets & Co' }).getAttribute('href')
    await page.goto(`${e2e.stack.url}${path.replace('/orgs/:id', href!)}`)
    await page.waitForLoadState('networkidle')
    await expect.poll(() => page.getByRole('status').filter({ hasText: /^Loading/ }).count(), WAIT).toBe(0)
    expect(await scrollsSideways(page)).toBe(false)
    await page.close()
  })

  it('a custom role is created, edited in place and deleted; the owner deletes the organization', async () => {
    const page = await e2e.browsers.owner.newPage()
    const csp = watchCsp(page)
    await page.goto(`${e2e.stack.url}/orgs`)
    await page.getByLabel('Name', { exact: true }).fill('Short Lived')
    await page.getByRole('button', { name: 'Create organization' }).click()
    await page.waitForURL(/\/orgs\/[0-9a-f-]{36}\?created=1$/)
    await expect.poll(() => page.getByLabel('Role name').isVisible(), WAIT).toBe(true)
    await page.getByLabel('Role name').fill('Recruiter')
    await page.getByLabel('See invitations').check()
    await page.getByLabel('Your apps’ own permissions (optional)').fill('billing:read')
    await page.getByRole('button', { name: 'Create role' }).click()
    await expect.poll(() => page.getByTestId('org-roles').textContent(), WAIT).toContain('Recruiter: billing:read; See invitations')

    await page.getByRole('button', { name: 'Edit the role Recruiter' }).click()
    expect(await page.getByLabel('Role name').inputValue()).toBe('Recruiter')
    expect(await page.getByLabel('See invitations').isChecked()).toBe(true)
    await page.getByLabel('Role name').fill('Talent')
    await page.getByLabel('Invite people, resend and revoke invitations').check()
    await page.getByRole('button', { name: 'Save role' }).click()
    await expect.poll(() => page.getByTestId('org-roles').textContent(), WAIT).toContain('Talent: ')
    expect(await page.getByTestId('org-roles').textContent()).toContain('Invite people, resend and revoke invitations')
    expect(await seriousA11yViolations(page)).toEqual([])

    await page.getByRole('button', { name: 'Delete the role Talent' }).click()
    await page.getByRole('group', { name: 'Delete the role “Talent”?' }).getByRole('button', { name: 'Confirm' }).click()
    await expect.poll(() => page.getByText('This organization has no custom roles.').isVisible(), WAIT).toBe(true)

    // the owner's webhooks: the form offers the organization's own event types alone; the secret is shown once
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Webhooks' }).click()
    await page.getByRole('button', { name: 'Add an endpoint' }).click()
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), WAIT).toBe('webhook-new-url')
    expect(await page.getByRole('group', { name: 'Event types' }).getByRole('checkbox').count()).toBe(1 + ORGANIZATION_WEBHOOK_TYPES.length)
    await page.getByLabel('Endpoint URL').fill('https://127.0.0.2/org-hook')
    await page.getByLabel('membership.created', { exact: true }).check()
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    await expect.poll(() => page.getByRole('textbox', { name: 'Signing secret' }).isVisible(), WAIT).toBe(true)
    await expect.poll(() => page.getByTestId('webhook-endpoints').getByText('https://127.0.0.2/org-hook', { exact: true }).isVisible(), WAIT).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])

    await page.getByRole('button', { name: 'Delete organization' }).click()
    await page.getByRole('group', { name: 'Delete Short Lived for everyone?' }).getByRole('button', { name: 'Confirm' }).click()
    await page.waitForURL(`${e2e.stack.url}/orgs?deleted=1`)
    await expect.poll(() => page.getByText('The organization was deleted.').isVisible(), WAIT).toBe(true)
    await expect.poll(() => page.getByTestId('org-list').textContent(), WAIT).not.toContain('Short Lived')
    expect(csp).toEqual([])
    await page.close()
  })

  it('asks for the password in place when the sign-in is older than 10 minutes, then deletes the organization (the clock moves: last)', async () => {
    const page = await e2e.browsers.owner.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    const csp = watchCsp(page)
    await page.goto(`${e2e.stack.url}/orgs`)
    await page.getByLabel('Name', { exact: true }).fill('Old Proof')
    await page.getByRole('button', { name: 'Create organization' }).click()
    await page.waitForURL(/\/orgs\/[0-9a-f-]{36}\?created=1$/)
    await expect.poll(() => page.getByRole('button', { name: 'Delete organization' }).isVisible(), WAIT).toBe(true)

    // past the 10 minutes of a recent sign-in, within the access token's life
    await advanceClock(e2e.stack.iam, 11 * 60_000, hmac)
    await page.getByRole('button', { name: 'Delete organization' }).click()
    await page.getByRole('group', { name: 'Delete Old Proof for everyone?' }).getByRole('button', { name: 'Confirm' }).click()
    const prompt = page.getByRole('group', { name: 'Confirm it is you' })
    await expect.poll(() => prompt.isVisible(), WAIT).toBe(true)
    // still there: nothing was deleted before the proof
    expect(page.url()).toMatch(/\/orgs\/[0-9a-f-]{36}/)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await scrollsSideways(page)).toBe(false)
    await saveScreenshot(page, 'org-delete-reauth-390')

    await prompt.getByLabel('Your password').fill(PASSWORD)
    await prompt.getByRole('button', { name: 'Confirm and continue' }).click()
    await page.waitForURL(`${e2e.stack.url}/orgs?deleted=1`)
    await expect.poll(() => page.getByText('The organization was deleted.').isVisible(), WAIT).toBe(true)
    await expect.poll(() => page.getByTestId('org-list').textContent(), WAIT).not.toContain('Old Proof')
    expect(csp).toEqual([])
    await page.close()
  })
})
