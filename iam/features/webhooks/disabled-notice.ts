/**
 * An endpoint the worker switched off by itself (deliver.ts: a run of failures, or 410 Gone) is told
 * to the people who can switch it on again: every platform administrator, each in their own
 * language and time zone, with a link to the console's webhooks page. Only a switch made by the
 * worker is mailed, once, by the instance whose statement made it (the update that switches it
 * requires the endpoint to be on, so two instances cannot both switch one); an administrator
 * switching one off in the console is not told what they did.
 */
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import { chooseLocale } from '../../contract/locales'
import { PLATFORM_ADMIN_ROLE } from '../../contract/admin'
import { getMailer } from '../mail/mailer'
import { webhookEndpointDisabledNotice } from '../mail/templates'

type Ctx = Pick<IamContext, 'config' | 'db' | 'log'>

/** A switch the worker made: a run of failures since `since`, or a 410 Gone. */
export type SwitchedOff = { publicId: string; url: string; at: Date } & ({ reason: 'failing'; since: Date } | { reason: 'gone' })

/**
 * The endpoint as a mail names it: host and path. A receiver's URL may carry a token in its query
 * (some services authenticate deliveries that way), which a mail does not repeat; and without its
 * scheme it is not a link (every link of a mail leads to the site, tests/iam/mail-languages.test.ts),
 * only the name of a receiver.
 */
export function shownEndpoint(url: string): string {
  // a stored URL was parsed when it was saved (url-check.ts)
  const parsed = new URL(url)
  return `${parsed.host}${parsed.pathname}`
}

/** Mails every platform administrator that `endpoint` was switched off; a mail that fails is logged, not retried. */
export async function mailEndpointSwitchedOff(ctx: Ctx, endpoint: SwitchedOff): Promise<void> {
  const admins = await ctx.db
    .selectFrom('users')
    .select(['email', 'locale', 'time_zone'])
    .where(sql<boolean>`roles @> ${JSON.stringify([PLATFORM_ADMIN_ROLE])}::jsonb`)
    .where('deletion_due_at', 'is', null)
    .execute()
  const mailer = getMailer(ctx)
  const consoleUrl = new URL('/admin/webhooks', ctx.config.magic_links.domain).toString()
  await Promise.all(
    admins.map((admin) =>
      mailer
        .send({
          to: admin.email,
          content: webhookEndpointDisabledNotice({
            siteName: ctx.config.email.siteName,
            locale: chooseLocale(admin.locale, null),
            timeZone: admin.time_zone,
            endpoint: shownEndpoint(endpoint.url),
            switch: endpoint,
            consoleUrl,
          }),
          links: [consoleUrl],
        })
        .catch((error: Error) => ctx.log.error('webhook endpoint notice not delivered', { endpoint: endpoint.publicId, error: error.message })),
    ),
  )
}
