/**
 * The mail to an address no account uses, after POST /auth/forgot-password or POST
 * /auth/email-sign-in answered it (as it answers every address). Mailing it, rather than doing
 * nothing, gives the unknown address the work the known one gets after the answer (the cap, a
 * render, a send), so the requests that follow are not faster for an unknown address (a timing
 * tell, measured by bench/login-enumeration.mjs --route); and the person who typed an address
 * they have no account under learns so in their mailbox, with the way to sign up, while the
 * answer still tells nobody else.
 *
 * Under the same per-address cap as every link mail (address-cap.ts), so a script cannot flood a
 * stranger's mailbox through it; the bot check (when on) guards both routes before this.
 */
import type { IamContext } from '../../context'
import { chooseLocale, type Locale } from '../../contract/locales'
import { rehearseFlow } from '../mfa/flows'
import { admitMailTo } from './address-cap'
import { getMailer } from './mailer'
import { noAccountMail } from './templates'

/**
 * The gateway's sign-up page. The address is not put in the link: the page takes no address from
 * a URL (pages/signup.vue: anyone can write a link), and a mail's links may be logged on the way.
 */
export function signupUrlFor(siteUrl: string): string {
  return new URL('/signup', siteUrl).toString()
}

/**
 * Under the address's cap, the flow a known address would have started rehearsed (the same
 * database work, thrown away: mfa/flows.ts rehearseFlow), then the mail.
 */
export async function mailNoAccount(
  ctx: IamContext,
  input: {
    email: string
    asked: 'forgot_password' | 'email_sign_in'
    /** the flow a known address gets: its purpose, whether a code rides along, its link's life */
    flow: { purpose: string; withCode: boolean; expiresInMs?: number }
    requestLocale?: Locale | undefined
    requestTimeZone?: string | null | undefined
  },
): Promise<void> {
  if (!(await admitMailTo(ctx, { email: input.email, userId: null, kind: 'no_account' }))) return
  await rehearseFlow(ctx, input.flow)
  const signupUrl = signupUrlFor(ctx.config.magic_links.domain)
  const content = noAccountMail({
    siteName: ctx.config.email.siteName,
    locale: chooseLocale(null, input.requestLocale),
    timeZone: input.requestTimeZone ?? null,
    asked: input.asked,
    signupUrl,
  })
  await getMailer(ctx).send({ to: input.email, links: [signupUrl], content })
}
