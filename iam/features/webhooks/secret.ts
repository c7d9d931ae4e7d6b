/**
 * An endpoint's signing secret: `whsec_` + 32 random bytes in base64 (the Standard Webhooks form,
 * which every library of that specification takes as it is), sealed at rest with AES-256-GCM under
 * the first key of secrets.totpKeys (lib/aead.ts; any configured key opens, so keys rotate), the
 * endpoint's public id as additional data so a sealed secret copied to another row does not open.
 *
 * Signatures are made by the `standardwebhooks` package: HMAC-SHA256 over `id.timestamp.body`.
 */
import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { openAesGcm, openedOnce, sealAesGcm } from '../../lib/aead'

export interface SealingKey {
  id: string
  /** 32 bytes, base64url */
  key: string
}

const aadOf = (endpointPublicId: string) => `webhook-endpoint:${endpointPublicId}`

/** A new secret: 256 bits from the CSPRNG, more than HMAC-SHA256's block needs to be unguessable. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`

export function sealWebhookSecret(keys: readonly SealingKey[] | undefined, endpointPublicId: string, secret: string): string {
  const current = keys?.[0]
  // boot fills a dev key in the dev profile and production refuses to start without one
  if (!current) throw new Error('secrets.totpKeys is not configured')
  return `${current.id}.${sealAesGcm(Buffer.from(current.key, 'base64url'), secret, aadOf(endpointPublicId))}`
}

/** The secret, or null when no configured key opens it (key removed, row altered or moved). */
export function openWebhookSecret(keys: readonly SealingKey[] | undefined, endpointPublicId: string, sealed: string): string | null {
  const dot = sealed.indexOf('.')
  const key = keys?.find((k) => k.id === sealed.slice(0, dot))
  return key ? openAesGcm(Buffer.from(key.key, 'base64url'), sealed.slice(dot + 1), aadOf(endpointPublicId)) : null
}

const openWebhookSecretCached = openedOnce((endpointPublicId: string, sealed: string, keys: readonly SealingKey[] | undefined) => openWebhookSecret(keys, endpointPublicId, sealed))
/**
 * openWebhookSecret, remembered per endpoint while its sealed form stays the same (lib/aead.ts
 * openedOnce): the worker signs every delivery.
 */
export const openWebhookSecretOnce = (keys: readonly SealingKey[] | undefined, endpointPublicId: string, sealed: string): string | null =>
  openWebhookSecretCached(endpointPublicId, sealed, keys)

/**
 * The `webhook-signature` header: one `v1,<base64>` per live secret, space-separated (during a
 * rotation's overlap both the new and the previous one sign, so a receiver still on the old
 * secret keeps verifying).
 */
export function signatureHeader(secrets: readonly string[], msgId: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(msgId, at, body)).join(' ')
}
