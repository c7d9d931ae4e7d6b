/**
 * Removing the ways in that someone else may have set up on an account, in the transaction of the
 * proof that gives the account back to its owner:
 * - a never-verified account whose address is then proven with a new password (a reset, or the
 *   verification link opened with a new password): whoever signed up with the owner's address may
 *   have added a passkey, TOTP, API tokens or a provider link, so everything set up before the
 *   proof goes (`since` null);
 * - an email change undone: the factors, passkeys, API tokens and provider links added since the
 *   change (`since` = the change) go, since whoever moved the address may have added them.
 * Sessions are ended by the callers, in the same transaction.
 */
import type { Transaction } from 'kysely'
import type { Database } from '../../db/schema'

export interface RemovedSetup {
  totp: boolean
  passkeys: number
  apiTokens: number
  providerLinks: number
}

export const nothingRemoved = (removed: RemovedSetup): boolean =>
  !removed.totp && removed.passkeys === 0 && removed.apiTokens === 0 && removed.providerLinks === 0

export async function removeSetup(trx: Transaction<Database>, input: { userId: number; since: Date | null }): Promise<RemovedSetup> {
  const { userId, since } = input
  let totpQuery = trx.deleteFrom('totp_factors').where('user_id', '=', userId)
  // a pending setup is no way in, but one started since goes too
  if (since) totpQuery = totpQuery.where((eb) => eb.or([eb('enabled_at', '>=', since), eb('created_at', '>=', since)]))
  const totp = await totpQuery.returning('enabled_at').execute()
  const totpRemoved = totp.some((row) => row.enabled_at !== null)
  // recovery codes belong to the TOTP factor: they go with it (and are only ever issued with it)
  if (totpRemoved) await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute()

  let passkeyQuery = trx.deleteFrom('passkeys').where('user_id', '=', userId)
  if (since) passkeyQuery = passkeyQuery.where('created_at', '>=', since)
  const passkeys = await passkeyQuery.returning('id').execute()

  let tokenQuery = trx.updateTable('api_tokens').set({ valid: 0 }).where('user_id', '=', userId).where('valid', '=', 1)
  if (since) tokenQuery = tokenQuery.where('created_at', '>=', since)
  const tokens = await tokenQuery.returning('id').execute()

  let identityQuery = trx.deleteFrom('oauth_identities').where('user_id', '=', userId)
  if (since) identityQuery = identityQuery.where('created_at', '>=', since)
  const identities = await identityQuery.returning('id').execute()

  return { totp: totpRemoved, passkeys: passkeys.length, apiTokens: tokens.length, providerLinks: identities.length }
}
