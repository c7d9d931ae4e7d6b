/**
 * The bot check by a Turnstile-style provider (config `botChallenge.provider: "turnstile"`,
 * docs/bot-challenge.md): the page renders the provider's widget with the site key, the widget
 * hands it a token, the form sends the token as `botProof`, and the IAM asks the provider's
 * siteverify endpoint whether it is good: one POST with the secret key, the token and the client
 * address, through the one outbound guard (shared/outbound.ts) with a deadline.
 *
 * Never a pass without the provider's `success: true`: an answer that cannot be read, a timeout, a
 * refused connection or the provider saying its own secret is wrong (a configuration fault) is
 * `unavailable`, which the routes answer 503, so an outage of the provider closes the forms it
 * guards rather than opening them to scripts. The provider spends a token on its first
 * verification (a second one answers `timeout-or-duplicate`), so nothing is stored here.
 */
import { guardedFetch, LOOPBACK_RANGES, type OutboundPolicy } from '../../../shared/outbound'
import type { IamContext } from '../../context'
import type { IamConfig } from '../../lib/config-schema'
import type { BotProofCheck } from './bot-proof'

/** Cloudflare's siteverify answers a few hundred bytes; anything far larger is not its answer. */
const MAX_ANSWER_BYTES = 16 * 1024

/** The provider's `error-codes` that say the token itself is stale or spent (the page gets a new one). */
const STALE = new Set(['timeout-or-duplicate'])
/** The ones that say our side of the exchange is wrong: a configuration fault, never the person's. */
const OURS = new Set(['missing-input-secret', 'invalid-input-secret', 'internal-error'])

/** The outbound policy of siteverify calls: loopback only with `allowLoopbackRequests` (tests, development; refused in production). */
export function turnstilePolicy(config: Pick<IamConfig, 'botChallenge'>): OutboundPolicy {
  const { timeoutMs, allowLoopbackRequests } = config.botChallenge.turnstile
  return {
    allowHttp: allowLoopbackRequests,
    allowAddresses: allowLoopbackRequests ? LOOPBACK_RANGES : [],
    timeoutMs,
    maxBytes: MAX_ANSWER_BYTES,
  }
}

interface SiteverifyAnswer {
  success?: unknown
  'error-codes'?: unknown
}

/** Asks the provider about `token` (the widget's answer) for the client at `remoteIp`. */
export async function verifyTurnstileToken(deps: Pick<IamContext, 'config' | 'log'>, token: string, remoteIp: string | undefined): Promise<BotProofCheck> {
  const { secretKey, verifyUrl } = deps.config.botChallenge.turnstile
  if (!secretKey) return { ok: false, code: 'unavailable' }
  const form = new URLSearchParams({ secret: secretKey, response: token, ...(remoteIp ? { remoteip: remoteIp } : {}) })
  let answer: SiteverifyAnswer
  try {
    const res = await guardedFetch(verifyUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() }, turnstilePolicy(deps.config))
    answer = JSON.parse(res.body.toString('utf8')) as SiteverifyAnswer
    if (res.status !== 200 || typeof answer !== 'object' || answer === null || typeof answer.success !== 'boolean') throw new Error(`siteverify answered ${res.status}`)
  } catch (error) {
    // the reason only (a refusal of the guard, a timeout, a status): the secret and the token never reach a log
    deps.log.warn('bot check: the provider could not be asked', { reason: error instanceof Error ? (('reason' in error && String(error.reason)) || error.message) : 'unknown' })
    return { ok: false, code: 'unavailable' }
  }
  if (answer.success === true) return { ok: true }
  const codes = Array.isArray(answer['error-codes']) ? answer['error-codes'].filter((c): c is string => typeof c === 'string') : []
  if (codes.some((c) => OURS.has(c))) {
    deps.log.error('bot check: the provider refused our side of the exchange', { errorCodes: codes.filter((c) => OURS.has(c)) })
    return { ok: false, code: 'unavailable' }
  }
  return { ok: false, code: codes.some((c) => STALE.has(c)) ? 'expired' : 'invalid' }
}
