/**
 * A software WebAuthn authenticator for IAM tests without a browser: an ES256 key pair from
 * node:crypto, client data and authenticator data built as WebAuthn Level 3 sections 5.8.1 and
 * 6.1 lay them out, attestation 'none', so options -> verify round trips are real signatures the
 * IAM checks with @simplewebauthn/server. Knobs (origin, rpId, counter, flags) let a test make the
 * answer wrong in exactly one way.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>

/** The few CBOR types (RFC 8949) an attestation object needs: integers, byte and text strings, maps. */
export function cbor(value: Cbor): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n])
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n])
    if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff])
    const b = Buffer.alloc(5)
    b[0] = (major << 5) | 26
    b.writeUInt32BE(n, 1)
    return b
  }
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value)
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8')
    return Buffer.concat([head(3, text.length), text])
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value])
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])])
}

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest()
const b64url = (data: Uint8Array | string) => Buffer.from(data).toString('base64url')

const FLAG_UP = 0x01
const FLAG_UV = 0x04
const FLAG_BE = 0x08
const FLAG_BS = 0x10
const FLAG_AT = 0x40

export interface Overrides {
  origin?: string
  rpId?: string
  /** the challenge to sign instead of the options' */
  challenge?: string
  /** the sign counter to report instead of the next one */
  counter?: number
  userVerified?: boolean
}

export interface SoftPasskey {
  credentialId: Buffer
  privateKey: KeyObject
  userHandle: string
  counter: number
}

export class SoftAuthenticator {
  readonly passkeys: SoftPasskey[] = []
  constructor(
    readonly origin = 'http://localhost:3000',
    readonly rpId = 'localhost',
    /** start counters above zero so the clone check is in play (0 means "no counter") */
    readonly counterStart = 1,
  ) {}

  private authData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4)
    count.writeUInt32BE(counter)
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])])
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }))
  }

  /** navigator.credentials.create() on `options` (the IAM's creation options), as startRegistration() serialises it. */
  register(options: { challenge: string; user: { id: string } }, over: Overrides = {}) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const jwk = publicKey.export({ format: 'jwk' })
    const coseKey = cbor(
      new Map<Cbor, Cbor>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    )
    const credentialId = randomBytes(32)
    const idLength = Buffer.alloc(2)
    idLength.writeUInt16BE(credentialId.length)
    const attested = Buffer.concat([Buffer.alloc(16), idLength, credentialId, coseKey])
    const passkey: SoftPasskey = { credentialId, privateKey, userHandle: options.user.id, counter: this.counterStart }
    const uv = over.userVerified === false ? 0 : FLAG_UV
    const authData = this.authData(over.rpId ?? this.rpId, FLAG_UP | uv | FLAG_BE | FLAG_BS | FLAG_AT, over.counter ?? passkey.counter, attested)
    const attestationObject = cbor(new Map<Cbor, Cbor>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]))
    const clientDataJSON = this.clientData('webauthn.create', over.challenge ?? options.challenge, over.origin ?? this.origin)
    this.passkeys.push(passkey)
    return {
      passkey,
      credential: {
        id: b64url(credentialId),
        rawId: b64url(credentialId),
        type: 'public-key' as const,
        authenticatorAttachment: 'platform' as const,
        clientExtensionResults: {},
        response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal' as const] },
      },
    }
  }

  /** navigator.credentials.get() on `options` with `passkey`, as startAuthentication() serialises it. Advances the counter. */
  assert(options: { challenge: string }, passkey: SoftPasskey, over: Overrides = {}) {
    passkey.counter += 1
    const uv = over.userVerified === false ? 0 : FLAG_UV
    const authData = this.authData(over.rpId ?? this.rpId, FLAG_UP | uv | FLAG_BE | FLAG_BS, over.counter ?? passkey.counter)
    const clientDataJSON = this.clientData('webauthn.get', over.challenge ?? options.challenge, over.origin ?? this.origin)
    // ES256 over authenticatorData || SHA-256(clientDataJSON), DER-encoded as WebAuthn expects
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), passkey.privateKey)
    return {
      id: b64url(passkey.credentialId),
      rawId: b64url(passkey.credentialId),
      type: 'public-key' as const,
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: passkey.userHandle,
      },
    }
  }
}
