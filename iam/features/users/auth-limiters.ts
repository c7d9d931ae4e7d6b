/**
 * Rate limits of the account routes (config rate_limiters.signup/login/oauth/refresh). Keys are the
 * client IP (an IPv6 client by its /64: limiterIpKey), and IP + email for login failures: never an
 * email alone, so nobody can lock a victim out by failing on purpose (DESIGN 4). No permanent
 * blocks here: windows and timed blocks only.
 *
 * The one per-account measure is `loginDelay` (rate_limiters.loginAccountDelay): a progressive
 * delay, not a block, so guesses spread over many addresses slow down while the owner still gets
 * in once the delay has passed (see progressive-delay.ts and login-delay.ts).
 */
import type { IamContext } from '../../context'
import { limiterIpKey } from '../../lib/ip'
import { createRateLimiter, type RateLimiter } from '../rate-limits/limiter'
import { createProgressiveDelay, type ProgressiveDelay } from '../rate-limits/progressive-delay'

export interface AuthLimiters {
  signup: RateLimiter
  /** per IP: the login budget times LOGIN_IP_FACTOR (many users can share one NAT address) */
  loginIp: RateLimiter
  /** per IP + email: the login budget; reset by a successful login */
  loginAccount: RateLimiter
  oauth: RateLimiter
  refresh: RateLimiter
  /** per account, or per account + known device (login-delay.ts): counted before Argon2 */
  loginDelay: ProgressiveDelay
}

export const LOGIN_IP_FACTOR = 5

const cache = new WeakMap<IamContext, AuthLimiters>()

export function getAuthLimiters(ctx: IamContext): AuthLimiters {
  let limiters = cache.get(ctx)
  if (!limiters) {
    const rl = ctx.config.rate_limiters
    limiters = {
      signup: createRateLimiter(ctx.store, 'signup', rl.signup),
      loginIp: createRateLimiter(ctx.store, 'login-ip', { ...rl.login, points: rl.login.points * LOGIN_IP_FACTOR }),
      loginAccount: createRateLimiter(ctx.store, 'login-account', rl.login),
      oauth: createRateLimiter(ctx.store, 'oauth', rl.oauth),
      refresh: createRateLimiter(ctx.store, 'refresh', rl.refresh),
      loginDelay: createProgressiveDelay(ctx.store, 'login-account-delay', rl.loginAccountDelay),
    }
    cache.set(ctx, limiters)
  }
  return limiters
}

/** The IP + email key (an IPv6 client by its /64; email case-folded so case variants share one budget). */
export const loginAccountKey = (ip: string, email: string) => `${limiterIpKey(ip)}_${email.trim().toLowerCase()}`

