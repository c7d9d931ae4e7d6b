import { defineEventHandler } from 'h3'
import { listConnectedApps } from '../../../features/oidc/connected-apps'
import { authenticateAccount } from '../../../http/account-input'
import { okEnvelope } from '../../../http/respond'

/** GET /auth/oidc/apps (full authentication): the apps the account signed in to with us. */
export default defineEventHandler(async (event) => {
  const { ctx, user } = await authenticateAccount(event)
  return okEnvelope({ apps: await listConnectedApps(ctx.db, user.userId, ctx.now()) })
})
