/**
 * The purge: erases every account whose confirmed deletion is due (users.deletion_due_at <= now),
 * with everything it owns, in batches. Run by each instance on a timer
 * (plugins/02.account-purge.ts) and by `users:purge` (cli/commands.ts).
 *
 * Safe on several instances at once, and idempotent: each batch takes its accounts with
 * `FOR UPDATE SKIP LOCKED`, so two purges never take the same account, and an account erased by
 * one is simply not found by the next. Each batch is one transaction: the accounts' security events
 * are stripped to type, time and the user's id (no address, device or details), then the rows that
 * do not follow the user row by themselves (the OpenID Provider's artefacts, invitations the
 * account sent, the devices only it used) are deleted, the pending invitations addressed to the
 * account's address are revoked, then the user row, whose foreign keys take
 * sessions, refresh tokens, API tokens, links and codes, factors, passkeys, linked accounts and
 * memberships with it (migrations 0001-0010). The address is free for a new sign-up afterwards.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import { invitationAddress } from '../organizations/invitations'
import { enqueueWebhookEvent } from '../webhooks/outbox'

/** Accounts taken per transaction: bounds the locks and the statement sizes of one step. */
export const PURGE_BATCH = 50

export interface PurgeSummary {
  /** accounts erased by this run */
  purged: number
}

export async function purgeDueAccounts(db: Kysely<Database>, now: Date, batch = PURGE_BATCH): Promise<PurgeSummary> {
  let purged = 0
  for (;;) {
    const taken = await db.transaction().execute((trx) => purgeBatch(trx, now, batch))
    purged += taken
    if (taken < batch) return { purged }
  }
}

async function purgeBatch(trx: Transaction<Database>, now: Date, batch: number): Promise<number> {
  const { rows } = await sql<{ id: number; public_id: string; email: string }>`
    select id, public_id::text as public_id, email from users
    where deletion_due_at is not null and deletion_due_at <= ${now}
    order by deletion_due_at, id
    limit ${batch}
    for update skip locked`.execute(trx)
  if (rows.length === 0) return 0
  const ids = rows.map((r) => r.id)
  const publicIds = rows.map((r) => r.public_id)
  await trx.updateTable('security_events').set({ ip_address: null, visitor_id: null, details: '{}' }).where('user_id', 'in', ids).execute()
  await trx.deleteFrom('oidc_payloads').where('account_id', 'in', publicIds).execute()
  // invitations keep an inviter only as a name shown to the invited address: theirs go with them
  await trx.deleteFrom('invitations').where('invited_by', 'in', ids).execute()
  // an invitation names an address, not an account: once the address is free a stranger could sign
  // up with it and accept, so what was meant for the erased person ends with them (revoked, not
  // deleted: the organization's list still shows it was sent)
  const addresses = rows.map((r) => invitationAddress(r.email))
  await trx
    .updateTable('invitations')
    .set({ revoked_at: now })
    .where('email', 'in', addresses)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .execute()
  // a device (a browser's canary) another account also signed in from stays: it is theirs too
  await sql`
    delete from visitors v
    where exists (select 1 from session_families f where f.visitor_id = v.id and f.user_id in (${sql.join(ids)}))
      and not exists (select 1 from session_families f where f.visitor_id = v.id and f.user_id not in (${sql.join(ids)}))
      and not exists (select 1 from second_factor_challenges c where c.visitor_id = v.id and c.user_id not in (${sql.join(ids)}))
      and not exists (select 1 from passkey_challenges c where c.visitor_id = v.id and (c.user_id is null or c.user_id not in (${sql.join(ids)})))`.execute(trx)
  // user.deleted, in the erasing transaction (features/webhooks/outbox.ts): no security event
  // reports it, since the account's own events go with it
  for (const row of rows) await enqueueWebhookEvent(trx, { type: 'user.deleted', subject: { publicId: row.public_id }, data: {}, at: now })
  await trx.deleteFrom('users').where('id', 'in', ids).execute()
  return rows.length
}
