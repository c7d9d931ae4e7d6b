/**
 * Proof of work against scripted sign-ups and mail floods (config `botChallenge`, docs/bot-challenge.md):
 * ALTCHA's v1 scheme (altcha-lib/v1). The IAM hands out a challenge: SHA-256(salt + n) for a
 * secret n below `maxNumber`, signed with HMAC-SHA256 and carrying its expiry in the salt. The
 * browser finds n by trying (on average maxNumber / 2 hashes); the IAM checks the answer with one
 * hash and one HMAC, then remembers its signature in the shared store until it expires, so a
 * solution is spent once. Nothing here is a secret the browser must keep: the cost is the work.
 *
 * The check is ours rather than altcha's `verifySolution`, which compares the signature with `===`
 * and judges expiry by the machine clock: here the signature and challenge are compared in
 * constant time, and expiry by the IAM's clock (ctx.now(), so tests move it). The hashing itself
 * is the library's (`createChallenge` with the given number recomputes both).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createChallenge } from 'altcha-lib/v1'
import type { Challenge } from 'altcha-lib/v1/types'
import { z } from 'zod'
import type { IamContext } from '../../context'
import { countBotCheckFailure } from './failure-tally'
import { verifyTurnstileToken } from './turnstile'

type Deps = Pick<IamContext, 'config' | 'store' | 'now'>

/**
 * The challenges' HMAC key, derived from `secrets.links` for this one use (its own label), so no
 * new secret needs managing and a challenge signature can never pass as a link's or the reverse.
 */
function challengeKey(deps: Pick<IamContext, 'config'>): string {
  const secret = deps.config.secrets.links
  if (!secret) throw new Error('secrets.links is not configured')
  return createHmac('sha256', secret).update('bot-challenge/v1').digest('hex')
}

/** A new challenge for the browser: algorithm, challenge, maxnumber, salt (with `expires`), signature. */
export function issueBotChallenge(deps: Deps): Promise<Challenge> {
  const { maxNumber, expiresInMs } = deps.config.botChallenge
  return createChallenge({ algorithm: 'SHA-256', hmacKey: challengeKey(deps), maxNumber, expires: new Date(deps.now() + expiresInMs) })
}

/** The solution as the browser sends it: ALTCHA's payload, base64 of its JSON. */
const payloadSchema = z.object({
  algorithm: z.literal('SHA-256'),
  challenge: z.string().regex(/^[0-9a-f]{64}$/),
  number: z.number().int().nonnegative(),
  salt: z.string().min(1).max(512),
  signature: z.string().regex(/^[0-9a-f]{64}$/),
})

/** `unavailable`: the provider could not be asked (`provider: "turnstile"`, turnstile.ts); never a pass */
export type BotProofFailure = 'missing' | 'invalid' | 'expired' | 'replayed' | 'unavailable'
export type BotProofCheck = { ok: true } | { ok: false; code: BotProofFailure }

function parsePayload(proof: string): z.infer<typeof payloadSchema> | null {
  try {
    const parsed = payloadSchema.safeParse(JSON.parse(Buffer.from(proof, 'base64').toString('utf8')))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}

const sameHex = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'))

/**
 * Checks a request's `botProof` with the configured provider (`botChallenge.provider`): the proof
 * of work here, or the token of a Turnstile-style widget asked of its provider (turnstile.ts), for
 * the client at `remoteIp`. A refusal is counted for the admin console (failure-tally.ts).
 */
export async function checkBotProof(deps: Deps & Pick<IamContext, 'log' | 'db'>, proof: string | undefined, remoteIp?: string): Promise<BotProofCheck> {
  const result: BotProofCheck = !proof
    ? { ok: false, code: 'missing' }
    : deps.config.botChallenge.provider === 'turnstile'
      ? await verifyTurnstileToken(deps, proof, remoteIp)
      : await checkPowSolution(deps, proof)
  if (!result.ok) countBotCheckFailure(deps, result.code)
  return result
}

/** Checks a proof-of-work solution (signature, work, expiry) and spends it: a second use of the same one is `replayed`. */
async function checkPowSolution(deps: Deps, proof: string): Promise<BotProofCheck> {
  const payload = parsePayload(proof)
  if (!payload || payload.number > deps.config.botChallenge.maxNumber) return { ok: false, code: 'invalid' }
  const again = await createChallenge({ algorithm: 'SHA-256', hmacKey: challengeKey(deps), number: payload.number, salt: payload.salt })
  // both: the challenge proves the work (its number), the signature that we issued it (its salt and expiry)
  if (!sameHex(again.challenge, payload.challenge) || !sameHex(again.signature, payload.signature)) return { ok: false, code: 'invalid' }
  const expiresAtMs = Number(new URLSearchParams(payload.salt.split('?')[1] ?? '').get('expires')) * 1000
  const now = deps.now()
  if (!Number.isFinite(expiresAtMs) || expiresAtMs <= now) return { ok: false, code: 'expired' }
  // one winner across instances: the store's atomic set-if-absent, kept until the challenge would expire anyway
  const fresh = await deps.store.setIfAbsent(`bot-proof:${payload.signature}`, 1, expiresAtMs - now + 1000)
  return fresh ? { ok: true } : { ok: false, code: 'replayed' }
}
