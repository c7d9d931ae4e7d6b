import { ROUTES } from '../../../contract/routes'
import { adminImportUsers } from '../../../features/admin/import-users'
import { okEnvelope } from '../../../http/respond'
import { body, defineRoute } from '../../../http/route'

/**
 * POST /admin/users/import (platform administrators, a recent sign-in): JSON Lines posted as
 * `{ jsonl, dryRun? }`, imported as `users:import` does; the answer is its report. No markup check:
 * the lines are data checked line by line (a bad line is reported, never a banned device), and the
 * names they carry are stored as the CLI stores them.
 */
export default defineRoute(ROUTES.adminUsersImport, [body({ markupCheck: false })], async ({ ctx, user, actor, body }) =>
  okEnvelope(await adminImportUsers(ctx, { userId: user.userId, actor, jsonl: body.jsonl, dryRun: body.dryRun === true })),
)
