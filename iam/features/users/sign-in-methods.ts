/**
 * The ways an account can sign in, as its owner sees them (GET /auth/sign-in-methods): the
 * account page shows the password form only to an account that has a password, and names the
 * provider of one that signs in through OAuth. Read apart from full authentication on purpose:
 * the auth-state statement runs on every request (bench hot path), this only when a page asks.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/schema'

export interface SignInMethods {
  password: boolean
  /** two-step sign-in (TOTP) is enabled */
  totp: boolean
  /** how many passkeys the account holds */
  passkeys: number
  /** the OAuth providers linked to the account, by configured name, sorted */
  providers: string[]
  /** each linked provider account: the address it gave when it last signed in, when it was linked (no ids) */
  linked: Array<{ provider: string; email: string | null; linkedAt: string }>
}

/** Two indexed reads by user id; null when the account no longer exists. */
export async function findSignInMethods(db: Kysely<Database>, userId: number): Promise<SignInMethods | null> {
  const row = await db
    .selectFrom('users as u')
    .where('u.id', '=', userId)
    .select((eb) => [
      eb('u.password_hash', 'is not', null).as('password'),
      eb.exists(eb.selectFrom('totp_factors as t').select('t.user_id').whereRef('t.user_id', '=', 'u.id').where('t.enabled_at', 'is not', null)).as('totp'),
      eb.selectFrom('passkeys as p').select((p) => p.fn.countAll<number | string>().as('n')).whereRef('p.user_id', '=', 'u.id').as('passkeys'),
    ])
    .executeTakeFirst()
  if (!row) return null
  const identities = await db
    .selectFrom('oauth_identities')
    .select(['provider', 'email', 'created_at'])
    .where('user_id', '=', userId)
    .orderBy('provider')
    .orderBy('created_at')
    .execute()
  const providers = [...new Set(identities.map((i) => i.provider))]
  const linked = identities.map((i) => ({ provider: i.provider, email: i.email || null, linkedAt: new Date(i.created_at).toISOString() }))
  // count(*) is a bigint: pg may hand it over as a string
  return { password: !!row.password, totp: !!row.totp, passkeys: Number(row.passkeys ?? 0), providers, linked }
}
