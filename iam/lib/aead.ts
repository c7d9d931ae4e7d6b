/**
 * AES-256-GCM sealing: `<iv>.<tag>.<ciphertext>` in base64url. GCM parameters: a 96-bit random IV
 * (NIST SP 800-38D §8.2) and the full 128-bit tag; Node's decipher accepts a shorter tag unless
 * authTagLength is fixed, and a 4-byte tag is forgeable by brute force. `aad` binds the ciphertext
 * to its context (a row cannot be moved to another owner and still open).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

const GCM_IV_BYTES = 12
const GCM_TAG_BYTES = 16

export function sealAesGcm(key: Uint8Array, plaintext: string, aad = ''): string {
  const iv = randomBytes(GCM_IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: GCM_TAG_BYTES })
  cipher.setAAD(Buffer.from(aad, 'utf8'))
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.')
}

/** The plaintext, or null when the key or aad differ, the value was altered or its tag is short. */
export function openAesGcm(key: Uint8Array, sealed: string, aad = ''): string | null {
  const parts = sealed.split('.')
  if (parts.length !== 3) return null
  const [iv, tag, body] = parts.map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer]
  if (iv.length !== GCM_IV_BYTES || tag.length !== GCM_TAG_BYTES) return null
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: GCM_TAG_BYTES })
    decipher.setAAD(Buffer.from(aad, 'utf8'))
    decipher.setAuthTag(tag)
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')
  } catch {
    return null
  }
}

/**
 * `open`, remembered per owner while its sealed form stays the same: a secret read on every request
 * (a client's on each token request, an endpoint's on each delivery) is otherwise an AES-GCM
 * decryption each time. A rotated or removed secret has another sealed form, so an entry answers
 * only while the stored form is the one it was opened from; the keys are the configuration's, read
 * at start, so no entry outlives the key it was opened with. Bounded: cleared when full.
 */
export function openedOnce<Args extends unknown[]>(open: (owner: string, sealed: string, ...rest: Args) => string | null, max = 1000) {
  const opened = new Map<string, { sealed: string; secret: string | null }>()
  return (owner: string, sealed: string, ...rest: Args): string | null => {
    const known = opened.get(owner)
    if (known?.sealed === sealed) return known.secret
    if (opened.size >= max) opened.clear()
    const secret = open(owner, sealed, ...rest)
    opened.set(owner, { sealed, secret })
    return secret
  }
}
