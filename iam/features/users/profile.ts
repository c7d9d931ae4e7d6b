/** The account's own profile: the name shown on the account page and in the header. */
import type { IamContext } from '../../context'
import type { Actor } from '../security-events/repository'
import { recordSecurityEvent } from '../security-events/repository'

/**
 * Stores the new name and records it in the account's security activity in one transaction, so
 * the activity list never misses a change nor shows one that did not happen. The details keep no
 * name: the activity list is a record of what happened, not a copy of personal data.
 */
export async function updateName(ctx: IamContext, input: { userId: number; actor: Actor; name: string }): Promise<{ name: string }> {
  const at = new Date(ctx.now())
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ name: input.name, updated_at: at }).where('id', '=', input.userId).execute()
    await recordSecurityEvent(trx, { type: 'profile_updated', userId: input.userId, visitorRowId: input.actor.visitorRowId, ipAddress: input.actor.ipAddress, details: { field: 'name' }, at })
  })
  return { name: input.name }
}
