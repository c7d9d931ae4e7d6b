/**
 * Every mail the IAM sends (iam/features/mail/templates.ts), rendered by Chromium as a mail client's
 * reading pane would: at 600 px (a desktop client) and 320 px (a small phone), in light and dark.
 * Nothing may need horizontal scrolling, whatever the length of its links, and the dark colours
 * apply where the client honours prefers-color-scheme. One Arabic mail reads right to left, its
 * button at the start of the line (the right). The pages are set as content: no server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { launchBrowser, saveScreenshot, type Browser } from '../helpers/browser'
import * as templates from '../../iam/features/mail/templates'

// a link as long as real ones get: a JWT, a random value and a visitor id in the query
const LONG = `https://accounts.example.com/auth/confirm?token=${'eyJhbGciOiJFZERTQSJ9'.repeat(12)}.${'x'.repeat(180)}&random=${'a1b2c3'.repeat(10)}&reason=MAGIC_LINK_MFA_CHECKS&visitor=${'v'.repeat(40)}`
const SITE = 'Acme Identity'
const WHEN = new Date('2026-11-29T14:05:00.000Z')
const TOKENS = [{ name: 'nightly export of every invoice of the year', publicIdentifier: 'api_0123456789abcdef' }]

const MAILS: Record<string, templates.MailContent> = {
  adaptiveMfa: templates.adaptiveMfaMail({ siteName: SITE, locale: 'en', link: LONG, code: '1234567', codeTtlMs: 600_000, anomaly: 'NEW_DEVICE', ipAddress: '2001:db8:85a3::8a2e:370:7334' }),
  customAction: templates.customActionMail({ siteName: SITE, locale: 'en', link: LONG, code: '1234567', codeTtlMs: 600_000, reason: 'PAYMENT_CONFIRM', note: 'Pay 1,240.00 EUR to ACME-SUPPLIES-INTERNATIONAL-HOLDINGS-LIMITED-PARTNERSHIP' }),
  emailChangeUndone: templates.emailChangeUndoneNotice({ siteName: SITE, locale: 'en', when: WHEN, ipAddress: '203.0.113.7', removed: { totp: true, passkeys: 2, apiTokens: 1, providerLinks: 1 }, passwordCleared: true, forgotUrl: LONG }),
  reauthenticateCode: templates.reauthenticateCodeMail({ siteName: SITE, locale: 'en', code: '1234567', codeTtlMs: 600_000 }),
  verifyEmail: templates.verifyEmailMail({ siteName: SITE, locale: 'en', link: LONG, linkTtlMs: 86_400_000 }),
  emailChanged: templates.emailChangedNotice({ siteName: SITE, locale: 'en', when: WHEN, ipAddress: '203.0.113.7', newEmailMasked: 'n***@example.com', undoLink: LONG, undoTtlMs: 7 * 86_400_000, tokens: TOKENS }),
  orgInvitation: templates.orgInvitationMail({ siteName: SITE, locale: 'en', orgName: 'Research and Development Department of the Northern Region', inviterName: 'Ada Lovelace', link: LONG, linkTtlMs: 7 * 86_400_000 }),
  passwordReset: templates.passwordResetMail({ siteName: SITE, locale: 'en', link: LONG, linkTtlMs: 900_000 }),
  passwordChanged: templates.passwordChangedNotice({ siteName: SITE, locale: 'en', when: WHEN, ipAddress: '203.0.113.7', tokens: TOKENS, revokedTokens: 2 }),
  useProvider: templates.useProviderMail({ siteName: SITE, locale: 'en', providers: ['github', 'google'], loginUrl: LONG }),
  secondFactor: templates.secondFactorNotice({ siteName: SITE, locale: 'en', change: 'recovery_code_used', when: WHEN, ipAddress: '203.0.113.7', recoveryCodesLeft: 3 }),
  deleteAccount: templates.deleteAccountMail({ siteName: SITE, locale: 'en', link: LONG, linkTtlMs: 900_000, undoWindowMs: 7 * 86_400_000 }),
  accountDisabled: templates.accountDisabledNotice({ siteName: SITE, locale: 'en', eraseAt: WHEN, undoLink: LONG, undoTtlMs: 7 * 86_400_000 }),
  restoreLink: templates.restoreLinkMail({ siteName: SITE, locale: 'en', asked: 'sign_in', eraseAt: WHEN, undoLink: LONG, undoTtlMs: 7 * 86_400_000 }),
  emailSignIn: templates.emailSignInMail({ siteName: SITE, locale: 'en', link: LONG, linkTtlMs: 900_000, code: '1234567', codeTtlMs: 900_000 }),
  accountRestored: templates.accountRestoredNotice({ siteName: SITE, locale: 'en', when: WHEN, ipAddress: '203.0.113.7', loginUrl: LONG }),
  webhookEndpointDisabled: templates.webhookEndpointDisabledNotice({ siteName: SITE, locale: 'en', endpoint: 'hooks.example.com/identity', switch: { reason: 'failing', at: WHEN, since: WHEN }, consoleUrl: LONG }),
  passkeySignup: templates.passkeySignupMail({ siteName: SITE, locale: 'en', code: '1234567', codeTtlMs: 900_000 }),
  accountExists: templates.accountExistsMail({ siteName: SITE, locale: 'en', loginUrl: LONG }),
  noAccount: templates.noAccountMail({ siteName: SITE, locale: 'en', asked: 'forgot_password', signupUrl: LONG }),
}

let browser: Browser
let page: Page
beforeAll(async () => {
  browser = await launchBrowser({ javaScriptEnabled: false })
  page = await browser.newPage()
})
afterAll(async () => {
  await browser?.close()
})

/** How far the rendered mail reaches past the viewport's width (0 when it fits). */
const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
const cardBackground = () => page.evaluate(() => getComputedStyle(document.querySelector('.mail-card')!).backgroundColor)

describe('mail layout', () => {
  it('covers every mail the templates module exports', () => {
    const exported = Object.entries(templates).filter(([name, value]) => typeof value === 'function' && /(Mail|Notice)$/.test(name)).length
    expect(Object.keys(MAILS)).toHaveLength(exported)
  })

  it.each(Object.keys(MAILS))('%s fits a 600 px and a 320 px pane without horizontal scrolling, in light and dark', async (name) => {
    const mail = MAILS[name]!
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme })
      for (const width of [600, 320]) {
        await page.setViewportSize({ width, height: 900 })
        await page.setContent(mail.html)
        expect(await overflow(), `${name} at ${width} px, ${colorScheme}`).toBe(0)
      }
      // the card's own colour follows the scheme (white in light, near black in dark)
      expect(await cardBackground(), `${name}, ${colorScheme}`).toBe(colorScheme === 'light' ? 'rgb(255, 255, 255)' : 'rgb(27, 31, 36)')
    }
    await page.emulateMedia({ colorScheme: 'light' })
    await page.setViewportSize({ width: 600, height: 900 })
    await page.setContent(mail.html)
    await saveScreenshot(page, `mail-${name}`)
  })

  it('lays an Arabic mail out right to left, its text and button on the right, within a 320 px pane', async () => {
    const arabic = templates.emailChangedNotice({ siteName: SITE, locale: 'ar', when: WHEN, ipAddress: '203.0.113.7', newEmailMasked: 'n***@example.com', undoLink: LONG, undoTtlMs: 7 * 86_400_000, tokens: TOKENS })
    for (const width of [600, 320]) {
      await page.setViewportSize({ width, height: 900 })
      await page.setContent(arabic.html)
      expect(await overflow(), `Arabic at ${width} px`).toBe(0)
      const layout = await page.evaluate(() => {
        const card = document.querySelector('.mail-card')!
        const button = document.querySelector('.mail-button')!.getBoundingClientRect()
        const cell = card.querySelector('td td, tr + tr > td')!.getBoundingClientRect()
        const paragraph = card.querySelector('p')!
        return {
          direction: getComputedStyle(card).direction,
          textAlign: getComputedStyle(paragraph).textAlign,
          // distances of the button from the content's right and left edges
          fromRight: cell.right - button.right,
          fromLeft: button.left - cell.left,
        }
      })
      expect(layout.direction).toBe('rtl')
      expect(['right', 'start']).toContain(layout.textAlign)
      expect(layout.fromRight, `button at ${width} px`).toBeLessThan(layout.fromLeft)
    }
    await page.setViewportSize({ width: 320, height: 900 })
    await saveScreenshot(page, 'mail-arabic-rtl-320')
  })

  it('lays a branded mail out within a 320 px pane, its button in the brand colour in light and dark', async () => {
    const brand = {
      logoUrl: 'https://cdn.acme.example/brand/a-rather-long-file-name-for-the-logo-of-the-company.png',
      primaryColor: '#7a1fa2',
      supportEmail: 'customer-support-and-account-help@acme-identity.example.com',
      legal: { termsUrl: `https://acme.example/legal/terms-of-service/${'v'.repeat(120)}`, privacyUrl: 'https://acme.example/legal/privacy' },
    }
    const branded = templates.verifyEmailMail({ siteName: SITE, locale: 'en', link: LONG, linkTtlMs: 86_400_000 }).renderWith({ brand })
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme })
      for (const width of [600, 320]) {
        await page.setViewportSize({ width, height: 900 })
        await page.setContent(branded.html)
        expect(await overflow(), `branded at ${width} px, ${colorScheme}`).toBe(0)
        expect(await page.evaluate(() => getComputedStyle(document.querySelector('.mail-button')!).backgroundColor), colorScheme).toBe('rgb(122, 31, 162)')
        expect(await page.getByRole('link').allTextContents()).toEqual(expect.arrayContaining(['Support', 'Terms', 'Privacy']))
        expect(await page.getByRole('img', { name: SITE }).count()).toBe(1)
      }
    }
    await page.emulateMedia({ colorScheme: 'light' })
    await saveScreenshot(page, 'mail-branded-320')
  })
})

