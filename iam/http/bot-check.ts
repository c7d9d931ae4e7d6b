/**
 * The proof-of-work step of the routes that make accounts or send mail to an address a stranger
 * types (sign-up, password reset, email sign-in): the body's `botProof`, checked and spent before
 * anything else is done (features/bot-challenge/bot-proof.ts). Off with `botChallenge.enabled: false`.
 */
import type { ErrorCode } from '../contract/error-codes'
import { checkBotProof, type BotProofFailure } from '../features/bot-challenge/bot-proof'
import { authFail } from './auth'
import { getJsonBody } from './request'
import { check, type RouteStep } from './route'

const ANSWERS: Record<BotProofFailure, { code: ErrorCode; error: string }> = {
  missing: { code: 'bot_check_required', error: 'Solve the browser check (GET /auth/bot-challenge) and send its solution as botProof' },
  invalid: { code: 'bot_check_failed', error: 'The browser check solution is not valid' },
  expired: { code: 'bot_check_failed', error: 'The browser check expired: solve a new one' },
  replayed: { code: 'bot_check_failed', error: 'The browser check solution was used already: solve a new one' },
  unavailable: { code: 'bot_check_unavailable', error: 'The browser check cannot be verified right now: try again shortly' },
}

/**
 * The answer to a refused check: 400, `botCheck` saying which (a page solves a new challenge for all
 * but `missing` alike); 503 when the provider could not be asked, which is never a pass.
 */
export function botCheckFail(failure: BotProofFailure): never {
  const answer = ANSWERS[failure]
  if (failure === 'unavailable') return authFail(503, answer.code, answer.error)
  return authFail(400, answer.code, answer.error, { botCheck: failure })
}

export const botCheck: RouteStep = check(async (req) => {
  if (!req.ctx.config.botChallenge.enabled) return
  const proof = getJsonBody<Record<string, unknown> | undefined>(req.event)?.botProof
  const result = await checkBotProof(req.ctx, typeof proof === 'string' && proof.length <= 4096 ? proof : undefined, req.ip)
  if (result.ok) return
  botCheckFail(result.code)
})
