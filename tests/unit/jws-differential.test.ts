/**
 * The access token verifier (iam/features/tokens/access-token.ts) against jose's own jwtVerify, over
 * a corpus of malformed, tampered and edge-case tokens. Our verifier runs jose's JWS check
 * (compactVerify) and its own claim checks, and may answer from the instance's verified-token
 * cache; the reference here is bare jwtVerify with the same pinned options plus our extra rules,
 * written out again below. Every token is judged by both under several rings and clocks, ours
 * twice (the second call answers from the cache when the first one filled it) and once without a
 * cache, and every answer must be the same code.
 *
 * Our codes from the reference, in order:
 * - `malformed`: the text before the first dot is not a JSON object header (jose's
 *   decodeProtectedHeader throws), or its `kid` is not a string;
 * - `unknown_key`: the `kid` names no key of the ring;
 * - `invalid`: not three base64url segments (RFC 7515 section 7.1, no padding or whitespace); a
 *   `crit` or `b64` header; a `typ` other than at+jwt (RFC 9068 section 4); then jwtVerify's
 *   errors as JOSE_ERROR_CODES maps them;
 * - `expired`: jwtVerify's JWTExpired;
 * - `malformed`: a payload jwtVerify accepted whose sub is not a UUID, or sid, jti, visitor, roles
 *   not of their types.
 */
import { sign as nodeSign, generateKeyPairSync } from 'node:crypto'
import { decodeProtectedHeader, errors, generateKeyPair, importJWK, jwtVerify, type CryptoKey } from 'jose'
import { describe, expect, it } from 'vitest'
import { signAccessToken, verifyAccessToken, type AccessTokenSettings, type VerifyResult } from '../../iam/features/tokens/access-token'
import { buildKeyRing, generateSigningJwk, type KeyRing } from '../../iam/features/tokens/signing-keys'
import { createVerifiedTokens } from '../../iam/features/tokens/verified-tokens'

type Outcome = 'ok' | Extract<VerifyResult, { ok: false }>['code']

const settings: AccessTokenSettings = { issuer: 'https://iam.test', audience: 'https://app.test', expiresInMs: 15 * 60_000 }
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0)
const NOW_S = Math.floor(NOW / 1000)
const EXP_S = NOW_S + 15 * 60
const SUBJECT = '0b6c1d9e-3f43-4a57-9d0e-7c0a4c1f5e21'

/** jwtVerify's errors (by their `code`) as our codes; any other error fails the test. */
const JOSE_ERROR_CODES: Record<string, Outcome> = {
  // an alg other than EdDSA (the `algorithms` option)
  [errors.JOSEAlgNotAllowed.code]: 'invalid',
  // a header or segment jose cannot read, no alg
  [errors.JWSInvalid.code]: 'invalid',
  [errors.JWSSignatureVerificationFailed.code]: 'invalid',
  // a payload that is not a JSON object
  [errors.JWTInvalid.code]: 'invalid',
  // iss, aud, a required claim, nbf, a time claim that is not a number
  [errors.JWTClaimValidationFailed.code]: 'invalid',
  [errors.JWTExpired.code]: 'expired',
}
const joseErrorsSeen = new Set<string>()

// ---- keys: A signs, B is retired but still verifies; the others are not ours ----

const a = await generateSigningJwk()
const b = await generateSigningJwk()
/** A signs; B was retired a minute ago and verifies until its tokens expire. */
const ring = await buildKeyRing([{ ...b, retiredAt: new Date(NOW - 60_000) }, { ...a, retiredAt: null }], settings.expiresInMs, NOW)
const keyB = (await importJWK({ ...b.privateJwk, alg: 'EdDSA' }, 'EdDSA')) as CryptoKey
const foreign = await generateKeyPair('Ed25519')
const rsa = await generateKeyPair('RS256')
const p256 = await generateKeyPair('ES256')
const ed448 = generateKeyPairSync('ed448')
const publicJwkA = ring.jwks.keys.find((key) => key.kid === a.kid)!
const hmac = (secret: Uint8Array<ArrayBuffer>) => crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
const hmacJwk = await hmac(new TextEncoder().encode(JSON.stringify(publicJwkA)))
const hmacX = await hmac(new Uint8Array(Buffer.from(publicJwkA.x!, 'base64url')))

/** The rings each token is judged under: ours; kid A naming another key; only B; ours again (the cache filled under the others). */
const rings: Array<[string, KeyRing]> = [
  ['our ring', ring],
  ['a ring where kid A names another key', { ...ring, verifiers: new Map([[a.kid, foreign.publicKey], [b.kid, ring.verifiers.get(b.kid)!]]) }],
  ['a ring without key A', { ...ring, verifiers: new Map([[b.kid, ring.verifiers.get(b.kid)!]]) }],
  ['our ring again', ring],
]
const clocks: Array<[string, number]> = [
  ['now', NOW],
  ['an hour earlier', NOW - 3_600_000],
  ['at exp', EXP_S * 1000],
  ['after exp', NOW + 20 * 60_000],
]

// ---- token making: any header and payload text, signed by any key ----

type Signer = 'A' | 'B' | 'foreign' | 'rsa' | 'p256' | 'ed448' | 'hmac-jwk' | 'hmac-x' | 'none'
const b64u = (value: string | Uint8Array) => Buffer.from(value).toString('base64url')

async function signature(by: Signer, input: string): Promise<string> {
  const data = new TextEncoder().encode(input)
  const subtle = (algorithm: AlgorithmIdentifier | EcdsaParams, key: CryptoKey) => crypto.subtle.sign(algorithm, key, data).then((s) => b64u(new Uint8Array(s)))
  switch (by) {
    case 'A': return subtle('Ed25519', ring.current.privateKey)
    case 'B': return subtle('Ed25519', keyB)
    case 'foreign': return subtle('Ed25519', foreign.privateKey)
    case 'rsa': return subtle('RSASSA-PKCS1-v1_5', rsa.privateKey)
    case 'p256': return subtle({ name: 'ECDSA', hash: 'SHA-256' }, p256.privateKey)
    case 'hmac-jwk': return subtle('HMAC', hmacJwk)
    case 'hmac-x': return subtle('HMAC', hmacX)
    case 'ed448': return b64u(nodeSign(null, data, ed448.privateKey))
    case 'none': return ''
  }
}

const claims = (over: Record<string, unknown> = {}) => ({
  sid: 'family-1', visitor: 'visitor-1', roles: ['user'],
  iss: settings.issuer, aud: settings.audience, sub: SUBJECT, jti: 'jti-1', iat: NOW_S, exp: EXP_S,
  ...over,
})
const header = (over: Record<string, unknown> = {}) => ({ alg: 'EdDSA', kid: a.kid, typ: 'at+jwt', ...over })
const without = (object: Record<string, unknown>, name: string) => Object.fromEntries(Object.entries(object).filter(([key]) => key !== name))

interface Make {
  /** an object, or the header's JSON text as it is to be encoded */
  header?: Record<string, unknown> | string
  payload?: Record<string, unknown> | string | Uint8Array
  by?: Signer
}

/** A compact JWS of exactly these header and payload texts, signed over them by `by`. */
async function make({ header: h = header(), payload = claims(), by = 'A' }: Make = {}): Promise<string> {
  const headerPart = b64u(typeof h === 'string' ? h : JSON.stringify(h))
  const payloadPart = b64u(typeof payload === 'string' || payload instanceof Uint8Array ? payload : JSON.stringify(payload))
  return `${headerPart}.${payloadPart}.${await signature(by, `${headerPart}.${payloadPart}`)}`
}

/** Like make, but the two segments as given (any text, also outside base64url). */
async function makeRaw(headerPart: string, payloadPart: string, by: Signer = 'A'): Promise<string> {
  return `${headerPart}.${payloadPart}.${await signature(by, `${headerPart}.${payloadPart}`)}`
}

const parts = (token: string) => token.split('.') as [string, string, string]
const ours = (await signAccessToken(ring, settings, { subject: SUBJECT, sessionId: 'family-1', visitor: 'visitor-1', roles: ['user'] }, NOW)).token
const other = (await signAccessToken(ring, settings, { subject: SUBJECT, sessionId: 'family-2', visitor: 'visitor-2', roles: ['admin'] }, NOW)).token
const byB = await make({ header: header({ kid: b.kid }), by: 'B' })

/** A token of ours whose signature segment holds a character of `-_` (RFC 4648 section 5's own two). */
async function withUrlAlphabet(): Promise<string> {
  for (let i = 0; ; i++) {
    const token = await make({ payload: claims({ jti: `jti-${i}` }) })
    if (/[-_]/.test(parts(token)[2])) return token
  }
}
const urlAlphabet = await withUrlAlphabet()

/** The last signature character with its unused low bits set: the same 64 bytes, spelled differently. */
function spareBits(token: string): string {
  const [h, p, s] = parts(token)
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  // 64 bytes are 86 characters: the last one carries 2 bits, its low 4 are unused
  const last = alphabet.indexOf(s.at(-1)!)
  return `${h}.${p}.${s.slice(0, -1)}${alphabet[last ^ 0b1111]}`
}

/** `text` with the `=` padding of base64 (RFC 4648 section 4) that base64url leaves out in JWS. */
function padded(text: string): string {
  const pad = (4 - (text.length % 4)) % 4
  if (pad === 0) throw new Error(`${text.length} characters need no padding: pick another length`)
  return `${text}${'='.repeat(pad)}`
}

const BIG = 'x'.repeat(64 * 1024)
const HUGE_KID = 'k'.repeat(100 * 1024)
const BOM = '\uFEFF'

interface Case {
  rule: string
  /** the answer at `now` under our ring, from both verifiers */
  want: Outcome
  token: string
}

const corpus: Case[] = [
  // what we issue
  { rule: 'accepts a token we signed', want: 'ok', token: ours },
  { rule: 'accepts a token signed by a retired key still in the ring', want: 'ok', token: byB },
  { rule: 'accepts a token without typ', want: 'ok', token: await make({ header: without(header(), 'typ') }) },
  { rule: 'accepts typ application/at+jwt', want: 'ok', token: await make({ header: header({ typ: 'application/at+jwt' }) }) },
  { rule: 'accepts typ at+jwt in any letter case', want: 'ok', token: await make({ header: header({ typ: 'AT+JWT' }) }) },
  { rule: 'accepts typ application/AT+JWT', want: 'ok', token: await make({ header: header({ typ: 'application/AT+JWT' }) }) },
  { rule: 'accepts an aud array that holds our audience', want: 'ok', token: await make({ payload: claims({ aud: ['https://other.test', settings.audience] }) }) },
  { rule: 'accepts an aud array that holds our audience beside a non-string', want: 'ok', token: await make({ payload: claims({ aud: [settings.audience, 5] }) }) },
  { rule: 'accepts empty roles', want: 'ok', token: await make({ payload: claims({ roles: [] }) }) },
  { rule: 'accepts claims it does not know', want: 'ok', token: await make({ payload: claims({ extra: { deep: [1, 2] } }) }) },
  { rule: 'accepts an iat in the future (no maximum age is set)', want: 'ok', token: await make({ payload: claims({ iat: EXP_S + 3600 }) }) },
  { rule: 'accepts nbf equal to now', want: 'ok', token: await make({ payload: claims({ nbf: NOW_S }) }) },
  { rule: 'accepts exp one second after now', want: 'ok', token: await make({ payload: claims({ exp: NOW_S + 1 }) }) },
  { rule: 'accepts a fractional exp after now', want: 'ok', token: await make({ payload: claims({ exp: NOW_S + 0.5 }) }) },
  { rule: 'accepts an exp beyond the range of a double, which JSON reads as Infinity (only our key signs one)', want: 'ok', token: await make({ payload: JSON.stringify(claims()).replace(`"exp":${EXP_S}`, '"exp":1e400') }) },

  // algorithm games (RFC 8725 section 3.1)
  { rule: 'refuses alg none with our kid and no signature', want: 'invalid', token: await make({ header: header({ alg: 'none' }), by: 'none' }) },
  { rule: 'refuses alg none with our kid and the signature of a token we signed', want: 'invalid', token: `${b64u(JSON.stringify(header({ alg: 'none' })))}.${parts(ours)[1]}.${parts(ours)[2]}` },
  { rule: 'refuses HS256 keyed with our public JWK as the secret', want: 'invalid', token: await make({ header: header({ alg: 'HS256' }), by: 'hmac-jwk' }) },
  { rule: 'refuses HS256 keyed with our public key bytes as the secret', want: 'invalid', token: await make({ header: header({ alg: 'HS256' }), by: 'hmac-x' }) },
  { rule: 'refuses RS256 signed by an RSA key, with our kid', want: 'invalid', token: await make({ header: header({ alg: 'RS256' }), by: 'rsa' }) },
  { rule: 'refuses ES256 signed by a P-256 key, with our kid', want: 'invalid', token: await make({ header: header({ alg: 'ES256' }), by: 'p256' }) },
  { rule: 'refuses alg Ed25519 even signed by our key (pinned to EdDSA)', want: 'invalid', token: await make({ header: header({ alg: 'Ed25519' }) }) },
  { rule: 'refuses alg eddsa in lower case', want: 'invalid', token: await make({ header: header({ alg: 'eddsa' }) }) },
  { rule: 'refuses a header without alg', want: 'invalid', token: await make({ header: without(header(), 'alg') }) },
  { rule: 'refuses alg as an array', want: 'invalid', token: await make({ header: header({ alg: ['EdDSA'] }) }) },

  // wrong curve: jose has no Ed448, so node:crypto signs these
  { rule: 'refuses an Ed448 signature under alg EdDSA and our kid', want: 'invalid', token: await make({ by: 'ed448' }) },
  { rule: 'refuses alg Ed448', want: 'invalid', token: await make({ header: header({ alg: 'Ed448' }), by: 'ed448' }) },

  // crit and b64 (RFC 7515 section 4.1.11, RFC 7797): we issue neither
  { rule: 'refuses crit b64 with b64 true, signed by our key', want: 'invalid', token: await make({ header: header({ crit: ['b64'], b64: true }) }) },
  { rule: 'refuses b64 false with an unencoded payload, signed by our key', want: 'invalid', token: await makeRaw(b64u(JSON.stringify(header({ crit: ['b64'], b64: false }))), JSON.stringify(claims())) },
  { rule: 'refuses b64 false with a base64url payload, signed by our key', want: 'invalid', token: await make({ header: header({ crit: ['b64'], b64: false }) }) },
  { rule: 'refuses a crit naming a parameter nobody understands', want: 'invalid', token: await make({ header: header({ crit: ['exp'], exp: 1 }) }) },
  { rule: 'refuses an empty crit', want: 'invalid', token: await make({ header: header({ crit: [] }) }) },
  { rule: 'refuses b64 without crit', want: 'invalid', token: await make({ header: header({ b64: true }) }) },
  { rule: 'accepts a crit hidden under __proto__, which is no crit header', want: 'ok', token: await make({ header: `{"alg":"EdDSA","kid":"${a.kid}","__proto__":{"crit":["b64"],"b64":false}}` }) },

  // kid games
  { rule: 'answers malformed to a header without kid', want: 'malformed', token: await make({ header: without(header(), 'kid') }) },
  { rule: 'answers unknown_key to a kid the ring does not hold', want: 'unknown_key', token: await make({ header: header({ kid: 'not-ours' }), by: 'foreign' }) },
  { rule: 'answers unknown_key to a kid the ring does not hold, whatever the alg', want: 'unknown_key', token: await make({ header: header({ kid: 'not-ours', alg: 'HS256' }), by: 'hmac-jwk' }) },
  { rule: 'answers malformed to a numeric kid', want: 'malformed', token: await make({ header: header({ kid: 7 }) }) },
  { rule: 'answers malformed to a kid array holding our kid', want: 'malformed', token: await make({ header: header({ kid: [a.kid] }) }) },
  { rule: 'answers malformed to a null kid', want: 'malformed', token: await make({ header: header({ kid: null }) }) },
  { rule: 'answers malformed to a kid object', want: 'malformed', token: await make({ header: header({ kid: { kid: a.kid } }) }) },
  { rule: 'answers malformed to a kid hidden under __proto__', want: 'malformed', token: await make({ header: `{"alg":"EdDSA","__proto__":{"kid":"${a.kid}"}}` }) },
  { rule: 'answers unknown_key to a huge kid', want: 'unknown_key', token: await make({ header: header({ kid: HUGE_KID }) }) },
  { rule: 'answers unknown_key to our kid in another letter case', want: 'unknown_key', token: await make({ header: header({ kid: a.kid.toUpperCase() === a.kid ? a.kid.toLowerCase() : a.kid.toUpperCase() }) }) },
  { rule: 'answers unknown_key to our kid with a trailing space', want: 'unknown_key', token: await make({ header: header({ kid: `${a.kid} ` }) }) },
  { rule: 'answers unknown_key to a kid named like a prototype member', want: 'unknown_key', token: await make({ header: header({ kid: '__proto__' }) }) },
  { rule: 'refuses kid B on a token signed by key A', want: 'invalid', token: await make({ header: header({ kid: b.kid }) }) },
  { rule: 'refuses our kid on a token signed by a foreign Ed25519 key', want: 'invalid', token: await make({ by: 'foreign' }) },
  { rule: 'takes the last of two kid members, as JSON.parse does', want: 'unknown_key', token: await make({ header: `{"alg":"EdDSA","kid":"${a.kid}","kid":"not-ours"}` }) },
  { rule: 'takes the last of two alg members, as JSON.parse does', want: 'ok', token: await make({ header: `{"alg":"none","kid":"${a.kid}","alg":"EdDSA"}` }) },

  // huge headers
  { rule: 'judges a huge header signed by our key like any other', want: 'ok', token: await make({ header: header({ pad: BIG }) }) },
  { rule: 'refuses a huge header signed by a foreign key', want: 'invalid', token: await make({ header: header({ pad: BIG }), by: 'foreign' }) },

  // signatures and segments moved between tokens
  { rule: 'refuses a payload swapped in from another token we signed', want: 'invalid', token: `${parts(ours)[0]}.${parts(other)[1]}.${parts(ours)[2]}` },
  { rule: 'refuses the signature of another token we signed', want: 'invalid', token: `${parts(ours)[0]}.${parts(ours)[1]}.${parts(other)[2]}` },
  { rule: 'refuses the header of a token of key B on a token of key A', want: 'invalid', token: `${parts(byB)[0]}.${parts(ours)[1]}.${parts(ours)[2]}` },
  { rule: 'refuses a payload changed after signing', want: 'invalid', token: `${parts(ours)[0]}.${b64u(JSON.stringify(claims({ roles: ['admin'] })))}.${parts(ours)[2]}` },
  { rule: 'refuses a signature of 64 zero bytes', want: 'invalid', token: `${parts(ours)[0]}.${parts(ours)[1]}.${b64u(new Uint8Array(64))}` },
  { rule: 'refuses a signature one byte too long', want: 'invalid', token: `${parts(ours)[0]}.${parts(ours)[1]}.${b64u(Buffer.concat([Buffer.from(parts(ours)[2], 'base64url'), Buffer.from([0])]))}` },
  { rule: 'refuses a signature one character short', want: 'invalid', token: ours.slice(0, -1) },
  { rule: 'accepts a signature whose last character differs only in its unused bits (the same bytes)', want: 'ok', token: spareBits(ours) },

  // compact serialization (RFC 7515 section 7.1)
  { rule: 'refuses a trailing dot', want: 'invalid', token: `${ours}.` },
  { rule: 'refuses a fourth segment', want: 'invalid', token: `${ours}.x` },
  { rule: 'refuses five segments', want: 'invalid', token: `${ours}.x.y` },
  { rule: 'refuses two segments', want: 'invalid', token: `${parts(ours)[0]}.${parts(ours)[1]}` },
  { rule: 'refuses an empty signature', want: 'invalid', token: `${parts(ours)[0]}.${parts(ours)[1]}.` },
  { rule: 'refuses an empty payload segment, signed by our key', want: 'invalid', token: await make({ payload: '' }) },
  { rule: 'answers malformed to a leading dot', want: 'malformed', token: `.${ours}` },
  { rule: 'answers malformed to an empty token', want: 'malformed', token: '' },
  { rule: 'answers malformed to three dots', want: 'malformed', token: '...' },
  { rule: 'answers malformed to a header that is not base64url JSON', want: 'malformed', token: 'not.a.jwt' },
  { rule: 'refuses a character outside base64url in the signature', want: 'invalid', token: `${ours}!` },
  { rule: 'refuses the standard base64 alphabet in place of base64url', want: 'invalid', token: urlAlphabet.replaceAll('-', '+').replaceAll('_', '/') },
  { rule: 'refuses padding after the signature', want: 'invalid', token: padded(ours) },
  { rule: 'refuses a padded header segment even when our key signed it so', want: 'invalid', token: await makeRaw(padded(b64u(JSON.stringify(header({ pad: 'x' })))), b64u(JSON.stringify(claims()))) },
  { rule: 'refuses a space inside the signature', want: 'invalid', token: `${ours.slice(0, -10)} ${ours.slice(-10)}` },
  { rule: 'refuses a line break inside the signature', want: 'invalid', token: `${ours.slice(0, -10)}\n${ours.slice(-10)}` },
  { rule: 'refuses leading and trailing whitespace', want: 'invalid', token: ` ${ours} ` },
  { rule: 'refuses a space inside the payload segment signed by our key', want: 'invalid', token: await makeRaw(b64u(JSON.stringify(header())), ` ${b64u(JSON.stringify(claims()))}`) },

  // JSON that is not a claims object
  { rule: 'refuses a payload that is a JSON array, signed by our key', want: 'invalid', token: await make({ payload: JSON.stringify([claims()]) }) },
  { rule: 'refuses a payload that is a JSON string, signed by our key', want: 'invalid', token: await make({ payload: '"claims"' }) },
  { rule: 'refuses a payload that is JSON null, signed by our key', want: 'invalid', token: await make({ payload: 'null' }) },
  { rule: 'refuses a payload that is not JSON, signed by our key', want: 'invalid', token: await make({ payload: 'sub=me' }) },
  { rule: 'refuses a payload that is not UTF-8, signed by our key', want: 'invalid', token: await make({ payload: new Uint8Array([...Buffer.from(JSON.stringify(claims()).slice(0, -1)), 0xff, 0x7d]) }) },
  { rule: 'reads a payload after a byte order mark, as jwtVerify does', want: 'ok', token: await make({ payload: `${BOM}${JSON.stringify(claims())}` }) },
  { rule: 'answers malformed to a header that is a JSON array', want: 'malformed', token: await make({ header: JSON.stringify([header()]) }) },
  { rule: 'answers malformed to a header that is JSON null', want: 'malformed', token: await make({ header: 'null' }) },
  { rule: 'answers malformed to a header that is not UTF-8', want: 'malformed', token: await makeRaw(b64u(new Uint8Array([...Buffer.from(JSON.stringify(header()).slice(0, -1)), 0xff, 0x7d])), b64u(JSON.stringify(claims()))) },
  { rule: 'reads a header after a byte order mark, as jose does', want: 'ok', token: await make({ header: `${BOM}${JSON.stringify(header())}` }) },
  { rule: 'takes the last of two sub members, as JSON.parse does', want: 'malformed', token: await make({ payload: JSON.stringify(claims()).replace(`"sub":"${SUBJECT}"`, `"sub":"${SUBJECT}","sub":"not-a-uuid"`) }) },
  { rule: 'takes the last of two exp members, as JSON.parse does', want: 'expired', token: await make({ payload: JSON.stringify(claims()).replace(`"exp":${EXP_S}`, `"exp":${EXP_S},"exp":${NOW_S - 1}`) }) },
  { rule: 'answers malformed to roles hidden under __proto__', want: 'malformed', token: await make({ payload: JSON.stringify(without(claims(), 'roles')).replace('{', '{"__proto__":{"roles":["admin"]},') }) },

  // exp, nbf, iat
  { rule: 'answers expired at exp itself', want: 'expired', token: await make({ payload: claims({ exp: NOW_S }) }) },
  { rule: 'answers expired to exp 0', want: 'expired', token: await make({ payload: claims({ exp: 0 }) }) },
  { rule: 'answers expired to a negative exp', want: 'expired', token: await make({ payload: claims({ exp: -1 }) }) },
  { rule: 'refuses a token without exp', want: 'invalid', token: await make({ payload: without(claims(), 'exp') }) },
  { rule: 'refuses exp as a string', want: 'invalid', token: await make({ payload: claims({ exp: String(EXP_S) }) }) },
  { rule: 'refuses exp null', want: 'invalid', token: await make({ payload: claims({ exp: null }) }) },
  { rule: 'refuses nbf one second after now', want: 'invalid', token: await make({ payload: claims({ nbf: NOW_S + 1 }) }) },
  { rule: 'refuses nbf as a string', want: 'invalid', token: await make({ payload: claims({ nbf: String(NOW_S) }) }) },
  { rule: 'refuses nbf null', want: 'invalid', token: await make({ payload: claims({ nbf: null }) }) },
  { rule: 'refuses an nbf in the future even when also expired', want: 'invalid', token: await make({ payload: claims({ nbf: NOW_S + 60, exp: NOW_S - 60 }) }) },
  { rule: 'refuses a token without iat', want: 'invalid', token: await make({ payload: without(claims(), 'iat') }) },
  { rule: 'refuses iat as a string', want: 'invalid', token: await make({ payload: claims({ iat: String(NOW_S) }) }) },

  // iss and aud (RFC 8725 sections 3.8, 3.9)
  { rule: 'refuses another issuer', want: 'invalid', token: await make({ payload: claims({ iss: 'https://evil.test' }) }) },
  { rule: 'refuses an issuer array holding ours', want: 'invalid', token: await make({ payload: claims({ iss: [settings.issuer] }) }) },
  { rule: 'refuses a token without iss', want: 'invalid', token: await make({ payload: without(claims(), 'iss') }) },
  { rule: 'refuses another audience', want: 'invalid', token: await make({ payload: claims({ aud: 'https://other.test' }) }) },
  { rule: 'refuses an aud array without ours', want: 'invalid', token: await make({ payload: claims({ aud: ['https://other.test'] }) }) },
  { rule: 'refuses an empty aud array', want: 'invalid', token: await make({ payload: claims({ aud: [] }) }) },
  { rule: 'refuses a token without aud', want: 'invalid', token: await make({ payload: without(claims(), 'aud') }) },
  { rule: 'refuses our audience with a trailing slash', want: 'invalid', token: await make({ payload: claims({ aud: `${settings.audience}/` }) }) },

  // the claims full authentication relies on
  { rule: 'refuses a token without sub', want: 'invalid', token: await make({ payload: without(claims(), 'sub') }) },
  { rule: 'answers malformed to a sub that is not a UUID', want: 'malformed', token: await make({ payload: claims({ sub: '42' }) }) },
  { rule: 'answers malformed to a UUID sub in capitals', want: 'malformed', token: await make({ payload: claims({ sub: SUBJECT.toUpperCase() }) }) },
  { rule: 'answers malformed to a numeric sub', want: 'malformed', token: await make({ payload: claims({ sub: 42 }) }) },
  { rule: 'refuses a token without sid', want: 'invalid', token: await make({ payload: without(claims(), 'sid') }) },
  { rule: 'answers malformed to a numeric sid', want: 'malformed', token: await make({ payload: claims({ sid: 1 }) }) },
  { rule: 'refuses a token without jti', want: 'invalid', token: await make({ payload: without(claims(), 'jti') }) },
  { rule: 'answers malformed to a numeric jti', want: 'malformed', token: await make({ payload: claims({ jti: 1 }) }) },
  { rule: 'answers malformed to a token without visitor', want: 'malformed', token: await make({ payload: without(claims(), 'visitor') }) },
  { rule: 'answers malformed to a numeric visitor', want: 'malformed', token: await make({ payload: claims({ visitor: 1 }) }) },
  { rule: 'answers malformed to a token without roles', want: 'malformed', token: await make({ payload: without(claims(), 'roles') }) },
  { rule: 'answers malformed to roles as a string', want: 'malformed', token: await make({ payload: claims({ roles: 'admin' }) }) },
  { rule: 'answers malformed to roles holding a number', want: 'malformed', token: await make({ payload: claims({ roles: ['user', 1] }) }) },

  // typ (RFC 9068 section 4): a JWT of another kind does not pass as an access token
  { rule: 'refuses typ JWT', want: 'invalid', token: await make({ header: header({ typ: 'JWT' }) }) },
  { rule: 'refuses typ application/jwt', want: 'invalid', token: await make({ header: header({ typ: 'application/jwt' }) }) },
  { rule: 'refuses typ at+jwt with a trailing space', want: 'invalid', token: await make({ header: header({ typ: 'at+jwt ' }) }) },
  { rule: 'refuses typ at+jwt with a parameter', want: 'invalid', token: await make({ header: header({ typ: 'application/at+jwt; charset=utf-8' }) }) },
  { rule: 'refuses a numeric typ', want: 'invalid', token: await make({ header: header({ typ: 1 }) }) },
  { rule: 'refuses typ null', want: 'invalid', token: await make({ header: header({ typ: null }) }) },
  { rule: 'refuses typ as an array', want: 'invalid', token: await make({ header: header({ typ: ['at+jwt'] }) }) },
]

// ---- the reference: bare jwtVerify with our pinned options, plus our rules written out here ----

const SEGMENT = /^[\w-]+$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

async function reference(keys: KeyRing, token: string, now: number): Promise<Outcome> {
  // the key: the kid of the header, from the ring only, before anything else
  let protectedHeader: Record<string, unknown>
  try {
    protectedHeader = decodeProtectedHeader({ protected: token.split('.')[0] })
  } catch {
    return 'malformed'
  }
  if (typeof protectedHeader.kid !== 'string') return 'malformed'
  const key = keys.verifiers.get(protectedHeader.kid)
  if (key === undefined) return 'unknown_key'
  // three base64url segments and nothing else
  const segments = token.split('.')
  if (segments.length !== 3 || !segments.every((segment) => SEGMENT.test(segment))) return 'invalid'
  // headers we never issue
  if (Object.hasOwn(protectedHeader, 'crit') || Object.hasOwn(protectedHeader, 'b64')) return 'invalid'
  const { typ } = protectedHeader
  if (typ !== undefined && !(typeof typ === 'string' && ['at+jwt', 'application/at+jwt'].includes(typ.toLowerCase()))) return 'invalid'
  let payload: Record<string, unknown>
  try {
    ;({ payload } = await jwtVerify(token, key, {
      algorithms: ['EdDSA'],
      issuer: settings.issuer,
      audience: settings.audience,
      requiredClaims: ['sub', 'sid', 'jti', 'iat', 'exp'],
      currentDate: new Date(now),
    }))
  } catch (error) {
    const code = error instanceof errors.JOSEError ? JOSE_ERROR_CODES[error.code] : undefined
    if (code === undefined) throw new Error(`no code for jose's ${String(error)}`, { cause: error })
    joseErrorsSeen.add((error as errors.JOSEError).code)
    return code
  }
  // the shapes full authentication relies on
  const { sub, sid, jti, visitor, roles } = payload
  const strings = [sid, jti, visitor].every((value) => typeof value === 'string')
  const roleList = Array.isArray(roles) && roles.every((role) => typeof role === 'string')
  if (typeof sub !== 'string' || !UUID.test(sub) || !strings || !roleList) return 'malformed'
  return 'ok'
}

const outcome = (result: VerifyResult): Outcome => (result.ok ? 'ok' : result.code)
// one cache for the whole file, as an instance keeps one across its requests
const verified = createVerifiedTokens()

describe('access token verification agrees with jose jwtVerify on every token', () => {
  it.each(corpus)('$rule', async ({ token, want }) => {
    expect(await reference(ring, token, NOW)).toBe(want)
    for (const [ringName, keys] of rings) {
      for (const [clockName, now] of clocks) {
        const expected = await reference(keys, token, now)
        const first = outcome(await verifyAccessToken(keys, settings, token, now, verified))
        const cachedNow = verified.get(token) !== undefined
        const second = outcome(await verifyAccessToken(keys, settings, token, now, verified))
        const uncached = outcome(await verifyAccessToken(keys, settings, token, now))
        const where = `${ringName}, ${clockName}`
        expect({ where, first, second, uncached }).toEqual({ where, first: expected, second: expected, uncached: expected })
        // a token whose signature passed is remembered, so the second call above was a hit
        if (first === 'ok') expect(cachedNow).toBe(true)
      }
    }
  })

  it('the corpus reaches every code and every jose error the table maps', () => {
    const wanted = new Set(corpus.map((entry) => entry.want))
    expect([...wanted].sort()).toEqual(['expired', 'invalid', 'malformed', 'ok', 'unknown_key'])
    expect([...joseErrorsSeen].sort()).toEqual(Object.keys(JOSE_ERROR_CODES).sort())
  })

  it('every rule of the corpus is stated once', () => {
    expect(new Set(corpus.map((entry) => entry.rule)).size).toBe(corpus.length)
  })
})
