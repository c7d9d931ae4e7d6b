/**
 * POST /admin/users/import: the CLI's `users:import` (features/users/import-users.ts) for lines
 * an administrator posts, bounded by the route's body limit. The same checks, batches and report;
 * the `users_imported` event is recorded on the administrator's own account with their public id.
 */
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import { importUsers, recordImport, type ImportSummary } from '../users/import-users'
import { BY_ADMIN, type AdminActor } from './users'

/** Line breaks as readline (the CLI's reader) takes them, so a line has the same number both ways. */
const LINE_BREAK = /\r\n|\n|\r/

/** Imports the lines of `jsonl` (a dry run: reports what would happen and writes nothing). */
export async function adminImportUsers(ctx: Pick<IamContext, 'db' | 'now'>, input: AdminActor & { jsonl: string; dryRun: boolean }): Promise<ImportSummary> {
  const now = new Date(ctx.now())
  const summary = await importUsers(ctx.db, input.jsonl.split(LINE_BREAK), { dryRun: input.dryRun, now })
  if (summary.dryRun) return summary
  const admin = await ctx.db.selectFrom('users').select(sql<string>`public_id::text`.as('public_id')).where('id', '=', input.userId).executeTakeFirst()
  await recordImport(
    ctx.db,
    summary,
    { userId: input.userId, visitorRowId: input.actor.visitorRowId, ipAddress: input.actor.ipAddress, details: { by: BY_ADMIN, adminId: admin?.public_id ?? null } },
    now,
  )
  return summary
}
