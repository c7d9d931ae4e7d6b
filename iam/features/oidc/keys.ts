/**
 * The OpenID Provider's signing keys: secrets.oidcKeys (production), or in the dev profile one RSA
 * key generated once and kept in oidc_signing_keys so every instance and restart signs alike.
 * The provider signs with the first key of the algorithm a client asks for and publishes them all
 * at {issuer}/jwks, so a new key goes first and the old one stays until its tokens expired
 * (docs/operations.md).
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import type { IamConfig } from '../../lib/config-schema'

const PRIVATE_PART: Record<string, string> = { RSA: 'd', EC: 'd', OKP: 'd' }

/** Checks each configured key is a private signing JWK and gives it a kid (RFC 7638 thumbprint) when it has none. */
export async function checkedKeys(keys: readonly Record<string, unknown>[]): Promise<JWK[]> {
  const out: JWK[] = []
  for (const [i, key] of keys.entries()) {
    const jwk = { ...key } as JWK
    const part = PRIVATE_PART[String(jwk.kty)]
    if (!part || typeof (jwk as Record<string, unknown>)[part] !== 'string') {
      throw new Error(`secrets.oidcKeys[${i}]: expected a private RSA, EC or OKP JWK`)
    }
    if (jwk.use && jwk.use !== 'sig') throw new Error(`secrets.oidcKeys[${i}]: use must be "sig"`)
    jwk.kid ??= await calculateJwkThumbprint(jwk)
    out.push(jwk)
  }
  if (!out.some((k) => k.kty === 'RSA')) throw new Error('secrets.oidcKeys: at least one RSA key (RS256 is the ID token algorithm every client supports)')
  return out
}

const DEV_KID_SLOT = 'dev-rsa'

/** The keys to sign with: the configured ones, else the dev key (generated on first start). */
export async function loadOidcKeys(db: Kysely<Database>, config: Pick<IamConfig, 'secrets'>): Promise<JWK[]> {
  if (config.secrets.oidcKeys?.length) return checkedKeys(config.secrets.oidcKeys)
  let rows = await db.selectFrom('oidc_signing_keys').select(['kid', 'private_jwk']).orderBy('created_at').execute()
  if (rows.length === 0) {
    const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true })
    const jwk = await exportJWK(privateKey)
    // one slot: two instances starting at once both insert; the first row wins for both
    await db
      .insertInto('oidc_signing_keys')
      .values({ kid: DEV_KID_SLOT, private_jwk: JSON.stringify({ ...jwk, kid: await calculateJwkThumbprint(jwk) }) })
      .onConflict((oc) => oc.column('kid').doNothing())
      .execute()
    rows = await db.selectFrom('oidc_signing_keys').select(['kid', 'private_jwk']).orderBy('created_at').execute()
  }
  return rows.map((row) => (typeof row.private_jwk === 'string' ? JSON.parse(row.private_jwk) : row.private_jwk) as JWK)
}
