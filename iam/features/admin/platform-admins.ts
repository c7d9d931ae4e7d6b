/**
 * Platform administrators: an account whose users.roles holds `admin`. The role is granted and
 * revoked only by the operator (the admin CLI, `users:grant-admin` / `users:revoke-admin`), never
 * over HTTP. Full authentication reads users.roles in its one statement on every request, so the
 * `platform-admin` guard (iam/http/reauthenticate.ts) sees a revocation at once; the access
 * token's `roles` claim follows at its next refresh, and nothing trusts it for this.
 */
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import { normalizeEmail } from '../email-checks/email-checks'
import { recordSecurityEvent } from '../security-events/repository'
import { endImpersonationsOpenedBy } from './impersonation-end'
import { findUserByEmail } from '../users/users-repo'
import { PLATFORM_ADMIN_ROLE } from '../../contract/admin'


export const isPlatformAdmin = (roles: readonly string[] | null | undefined): boolean => !!roles?.includes(PLATFORM_ADMIN_ROLE)

export type AdminRoleResult = { ok: true; userId: number; changed: boolean } | { ok: false; code: 'unknown_account' }

/**
 * Grants (`admin: true`) or revokes the role of the account behind `email`, and records the change
 * on the account (`admin_granted` / `admin_revoked`, details.by) in the same transaction. Setting
 * what is already so changes nothing and records nothing.
 */
export async function setPlatformAdmin(ctx: Pick<IamContext, 'db' | 'now'>, input: { email: string; admin: boolean; by: string }): Promise<AdminRoleResult> {
  const user = await findUserByEmail(ctx.db, normalizeEmail(input.email))
  if (!user) return { ok: false, code: 'unknown_account' }
  const now = new Date(ctx.now())
  const role = JSON.stringify([PLATFORM_ADMIN_ROLE])
  const changed = await ctx.db.transaction().execute(async (trx) => {
    // the condition in the statement: two runs at once change (and record) once
    const updated = input.admin
      ? await trx
          .updateTable('users')
          .set({ roles: sql<string[]>`roles || ${role}::jsonb`, updated_at: now })
          .where('id', '=', user.id)
          .where(sql<boolean>`not (roles @> ${role}::jsonb)`)
          .returning('id')
          .executeTakeFirst()
      : await trx
          .updateTable('users')
          .set({ roles: sql<string[]>`roles - ${PLATFORM_ADMIN_ROLE}::text`, updated_at: now })
          .where('id', '=', user.id)
          .where(sql<boolean>`roles @> ${role}::jsonb`)
          .returning('id')
          .executeTakeFirst()
    if (!updated) return false
    // a former administrator's sessions on other accounts' behalf end with the role
    if (!input.admin) await endImpersonationsOpenedBy(trx, user.id, { visitorRowId: null, ipAddress: null }, 'admin_revoked', now)
    await recordSecurityEvent(trx, {
      type: input.admin ? 'admin_granted' : 'admin_revoked',
      userId: user.id,
      visitorRowId: null,
      ipAddress: null,
      details: { by: input.by },
      at: now,
    })
    return true
  })
  return { ok: true, userId: user.id, changed }
}
