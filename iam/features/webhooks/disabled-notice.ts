/**
 * An endpoint the worker switched off by itself (deliver.ts: a run of failures, or 410 Gone) is told
 * to the people who can switch it on again, each in their own language and time zone, with a link to
 * where they do it: a platform endpoint's to every platform administrator (the console's webhooks
 * page), an organization's to its owners (the organization's page, migration 0030). Only a switch
 * made by the worker is mailed, once, by the instance whose statement made it (the update that
 * switches it requires the endpoint to be on, so two instances cannot both switch one); a person
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

type Recipient = { email: string; locale: string | null; time_zone: string | null }

// A suspended account (a ban in force, docs/administration.md "Suspensions") cannot sign in to
// switch the endpoint on, so it is not told; nor is one whose deletion is confirmed.
const canAct = sql<boolean>`(u.banned_until is null or u.banned_until <= now()) and u.deletion_due_at is null`

/** Who may switch the endpoint on again and where: null when it is gone meanwhile (nothing to switch on). */
async function peopleToTell(ctx: Ctx, publicId: string): Promise<{ recipients: Recipient[]; path: string } | null> {
  const endpoint = await ctx.db.selectFrom('webhook_endpoints').select('organization_id').where('public_id', '=', publicId).executeTakeFirst()
  if (!endpoint) return null
  if (endpoint.organization_id === null) {
    const admins = await ctx.db
      .selectFrom('users as u')
      .select(['u.email', 'u.locale', 'u.time_zone'])
      .where(sql<boolean>`u.roles @> ${JSON.stringify([PLATFORM_ADMIN_ROLE])}::jsonb`)
      .where(canAct)
      .execute()
    return { recipients: admins, path: '/admin/webhooks' }
  }
  const owners = await ctx.db
    .selectFrom('memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.org_id')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.email', 'u.locale', 'u.time_zone'])
    .where(sql<boolean>`o.public_id = ${endpoint.organization_id}::uuid`)
    .where('m.role', '=', 'owner')
    .where('m.deprovisioned_at', 'is', null)
    .where(canAct)
    .execute()
  return { recipients: owners, path: `/orgs/${endpoint.organization_id}#webhooks` }
}

/** Mails the people who can switch `endpoint` on again that it was switched off; a mail that fails is logged, not retried. */
export async function mailEndpointSwitchedOff(ctx: Ctx, endpoint: SwitchedOff): Promise<void> {
  const told = await peopleToTell(ctx, endpoint.publicId)
  if (!told) return
  const mailer = getMailer(ctx)
  const consoleUrl = new URL(told.path, ctx.config.magic_links.domain).toString()
  await Promise.all(
    told.recipients.map((person) =>
      mailer
        .send({
          to: person.email,
          content: webhookEndpointDisabledNotice({
            siteName: ctx.config.email.siteName,
            locale: chooseLocale(person.locale, null),
            timeZone: person.time_zone,
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
