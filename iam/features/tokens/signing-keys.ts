/**
 * Access-token signing keys (Ed25519). The newest key that is not retired signs; every key verifies
 * until the tokens it signed have expired (retired_at + access TTL), so rotation never logs anyone
 * out. Keys come from `secrets.accessTokenKeys` (first signs, all verify) or, in the dev profile,
 * are generated once and kept in `signing_keys` so every instance and restart agrees.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import type { IamConfig } from '../../lib/config-schema'

export const ACCESS_TOKEN_ALG = 'EdDSA'

export interface SigningKey {
  kid: string
  privateKey: CryptoKey
}

export interface KeyRing {
  /** the key that signs new tokens */
  current: SigningKey
  /** public keys by kid: every key whose tokens may still be live */
  verifiers: Map<string, CryptoKey>
  /** the public JWK set (RFC 7517 §5) served at /.well-known/jwks.json */
  jwks: { keys: JWK[] }
}

type KeyRow = { kid: string; privateJwk: JWK; publicJwk: JWK; retiredAt: Date | null }

const publicPart = (jwk: JWK): JWK => ({ kty: jwk.kty, crv: jwk.crv, x: jwk.x })

/** Builds the ring from rows ordered oldest first; the newest unretired row signs. */
export async function buildKeyRing(rows: KeyRow[], accessTtlMs: number, now: number): Promise<KeyRing> {
  const live = rows.filter((row) => !row.retiredAt || row.retiredAt.getTime() + accessTtlMs > now)
  const signer = [...rows].reverse().find((row) => !row.retiredAt)
  if (!signer) throw new Error('no access-token signing key is active')
  const verifiers = new Map<string, CryptoKey>()
  const keys: JWK[] = []
  for (const row of live) {
    const pub = { ...publicPart(row.publicJwk), kid: row.kid, alg: ACCESS_TOKEN_ALG, use: 'sig' }
    verifiers.set(row.kid, (await importJWK(pub, ACCESS_TOKEN_ALG)) as CryptoKey)
    keys.push(pub)
  }
  const privateKey = (await importJWK({ ...signer.privateJwk, alg: ACCESS_TOKEN_ALG }, ACCESS_TOKEN_ALG)) as CryptoKey
  return { current: { kid: signer.kid, privateKey }, verifiers, jwks: { keys } }
}

/** A fresh Ed25519 key pair as JWKs with a thumbprint kid (RFC 7638). */
export async function generateSigningJwk(): Promise<{ kid: string; privateJwk: JWK; publicJwk: JWK }> {
  const { privateKey } = await generateKeyPair('Ed25519', { extractable: true })
  const privateJwk = await exportJWK(privateKey)
  const publicJwk = publicPart(privateJwk)
  const kid = await calculateJwkThumbprint(publicJwk)
  return { kid, privateJwk: { ...privateJwk, kid }, publicJwk: { ...publicJwk, kid } }
}

async function rowsFromConfig(jwks: Record<string, unknown>[]): Promise<KeyRow[]> {
  // config order: the first signs, so it goes last (newest) in the oldest-first list
  const rows: KeyRow[] = []
  for (const raw of [...jwks].reverse()) {
    const jwk = raw as JWK
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || !jwk.d || !jwk.x) {
      throw new Error('secrets.accessTokenKeys: every key must be an Ed25519 private JWK (kty OKP, crv Ed25519, d, x)')
    }
    const kid = jwk.kid ?? (await calculateJwkThumbprint(publicPart(jwk)))
    rows.push({ kid, privateJwk: jwk, publicJwk: publicPart(jwk), retiredAt: null })
  }
  return rows
}

async function rowsFromDb(db: Kysely<Database>): Promise<KeyRow[]> {
  const rows = await db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'asc').orderBy('kid', 'asc').execute()
  return rows.map((row) => ({
    kid: row.kid,
    privateJwk: row.private_jwk as JWK,
    publicJwk: row.public_jwk as JWK,
    retiredAt: row.retired_at,
  }))
}

/** Loads the ring: config keys, else the database keys (generating the first one when none exist). */
export async function loadKeyRing(db: Kysely<Database>, config: Pick<IamConfig, 'secrets' | 'jwt'>, now: number): Promise<KeyRing> {
  const ttl = config.jwt.access_tokens.expiresInMs
  if (config.secrets.accessTokenKeys?.length) return buildKeyRing(await rowsFromConfig(config.secrets.accessTokenKeys), ttl, now)
  let rows = await rowsFromDb(db)
  if (!rows.some((row) => !row.retiredAt)) {
    await insertSigningKey(db, await generateSigningJwk())
    rows = await rowsFromDb(db)
  }
  return buildKeyRing(rows, ttl, now)
}

async function insertSigningKey(db: Kysely<Database>, key: { kid: string; privateJwk: JWK; publicJwk: JWK }): Promise<void> {
  await db
    .insertInto('signing_keys')
    .values({ kid: key.kid, alg: ACCESS_TOKEN_ALG, private_jwk: JSON.stringify(key.privateJwk), public_jwk: JSON.stringify(key.publicJwk) })
    .onConflict((oc) => oc.column('kid').doNothing())
    .execute()
}

/**
 * Rotation (database keys): a new key signs from now on; the previous ones are retired and keep
 * verifying until their last tokens expire. Returns the new kid.
 */
export async function rotateSigningKey(db: Kysely<Database>, now: number): Promise<string> {
  const key = await generateSigningJwk()
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('signing_keys').set({ retired_at: new Date(now) }).where('retired_at', 'is', null).execute()
    // created_at must sort after every retired key even within the same millisecond
    await trx
      .insertInto('signing_keys')
      .values({
        kid: key.kid,
        alg: ACCESS_TOKEN_ALG,
        private_jwk: JSON.stringify(key.privateJwk),
        public_jwk: JSON.stringify(key.publicJwk),
        created_at: new Date(now + 1),
      })
      .execute()
  })
  return key.kid
}
