/**
 * The operator's revocation of one API token by its public identifier (the admin CLI): the token
 * stops verifying at once; a security event names the token, never its value.
 */
import type { IamContext } from '../../context'
import { recordSecurityEvent } from '../security-events/repository'

export type AdminRevokeResult = { ok: true; tokenId: number; userId: number } | { ok: false; code: 'unknown_token' }

export async function revokeTokenByPublicIdentifier(ctx: IamContext, input: { publicIdentifier: string; by: string }): Promise<AdminRevokeResult> {
  const at = new Date(ctx.now())
  return ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('api_tokens')
      .set({ valid: 0 })
      .where('public_identifier', '=', input.publicIdentifier)
      .where('valid', '=', 1)
      .returning(['id', 'user_id', 'name'])
      .executeTakeFirst()
    if (!row) return { ok: false, code: 'unknown_token' } as const
    await recordSecurityEvent(trx, {
      type: 'api_token_revoked',
      userId: row.user_id,
      visitorRowId: null,
      ipAddress: null,
      details: { name: row.name, publicIdentifier: input.publicIdentifier, by: input.by },
      at,
    })
    return { ok: true, tokenId: row.id, userId: row.user_id } as const
  })
}
