/**
 * The one limiter registry: the API token limiters (rate_limiters.apiTokensLimiters,
 * docs/configuration.md) and the IAM's own, named once (names: iam/contract/limiter-names.ts)
 * with its key shape, its configuration and its permanent-block rule. Routes and features ask for a
 * limiter by name and hand it the request's facts; nobody else builds keys or limiters.
 *
 * `storage` is the namespace of the limiter's keys in the shared store (`rl:<storage>:...`,
 * `pd:<storage>:...`): renaming one forgets every running count and block, so they are kept as
 * they were when the three former registries were merged.
 *
 * Keys are never an email alone (nobody can lock a victim out by failing on purpose), except
 * `mailbox`, which refuses no request (it only holds back mails to one address), and never a raw
 * address or API token (both are counted under their SHA-256). An IPv6 client counts as its /64
 * (limiterIpKey).
 */
import { createHash } from 'node:crypto'
import type { LimiterName } from '../../contract/limiter-names'
import type { IamConfig } from '../../lib/config-schema'
import { limiterIpKey } from '../../../shared/ip'
import type { SharedStore } from '../../lib/storage'
import { hashToken } from '../api-tokens/token-format'
import { normalizeEmail } from '../email-checks/email-checks'
import type { LimitRefund } from '../../lib/storage/atomic'
import { createRateLimiter, type LimitDecision, type LimiterSpec, type LimitStep, type RateLimiter } from './limiter'
import { createProgressiveDelay, type DelayDecision, type MarkedDelayStep, type ProgressiveDelay, type ProgressiveDelaySpec } from './progressive-delay'

export type { LimiterName } from '../../contract/limiter-names'

type LimitersConfig = IamConfig['rate_limiters']

/** A counting limiter: windows, timed blocks, and a permanent block after n consecutive rejections. */
interface CountRule<F> {
  kind: 'count'
  storage: string
  /** where its numbers are configured (docs/configuration.md) */
  config: string
  parts: (rl: LimitersConfig) => LimiterSpec | LimiterSpec[]
  /** the n-th consecutive rejection blocks permanently (for the API token limiters that say so); 0 never */
  permanentAfter: 0 | 1 | 2
  key: (facts: F) => string
}

/** A progressive delay: never a block, each early attempt is told how long to wait. */
interface DelayRule<F> {
  kind: 'delay'
  storage: string
  config: string
  spec: (rl: LimitersConfig) => ProgressiveDelaySpec
  key: (facts: F) => string
}

const count = <F>(rule: Omit<CountRule<F>, 'kind'>): CountRule<F> => ({ kind: 'count', ...rule })
const delay = <F>(rule: Omit<DelayRule<F>, 'kind'>): DelayRule<F> => ({ kind: 'delay', ...rule })

type IpFacts = { ip: string }
const byIp = ({ ip }: IpFacts) => limiterIpKey(ip)
/** Operation limiters (rule 3): `<IP>_<userId>`. */
const byIpAndUser = ({ ip, userId }: { ip: string; userId: number }) => `${limiterIpKey(ip)}_${userId}`
const byUser = ({ userId }: { userId: number }) => `user_${userId}`

/** The per-IP login budget is the per-account one times this: many users can share one NAT address. */
export const LOGIN_IP_FACTOR = 5

/** The login delay's subject: the case-folded address as typed, or it on one known device. */
export const loginDelaySubject = (email: string, device?: number) => {
  const account = normalizeEmail(email).toLowerCase()
  return device === undefined ? account : `${account}\n${device}`
}

/** The IAM's own limiters beyond the API token ones: `rate_limiters.<name>`, windows and timed blocks, never permanent. */
type DesignLimiter = 'signup' | 'login' | 'oauth' | 'refresh' | 'links' | 'codes' | 'forgotPassword' | 'emailSignIn' | 'emails' | 'check' | 'passkeyOptions' | 'resendVerification' | 'export' | 'picture' | 'mailbox' | 'deviceUserCode' | 'oidcRegistration' | 'organizationWebhooks'
const design = <F>(config: DesignLimiter, storage: string, key: (facts: F) => string) =>
  count({ storage, config: `rate_limiters.${config}`, parts: (rl) => rl[config], permanentAfter: 0, key })

const API = 'rate_limiters.apiTokensLimiters'
const operation = (name: keyof LimitersConfig['apiTokensLimiters']['operationRateLimits'], storage: string) =>
  count({
    storage: `api-tokens-${storage}`,
    config: `${API}.operationRateLimits.${name}`,
    parts: (rl) => rl.apiTokensLimiters.operationRateLimits[name],
    permanentAfter: 2,
    key: byIpAndUser,
  })

const RULES = {
  /** failed verifications only (rule 5): `<IP>_verify`, the IP, or the token (hashed) */
  consumptionRateLimiter: count({
    storage: 'api-tokens-consumption',
    config: `${API}.consumptionRateLimiter`,
    parts: (rl) => rl.apiTokensLimiters.consumptionRateLimiter,
    permanentAfter: 1,
    key: (facts: { ip: string; on?: 'verify' } | { token: string }) =>
      'token' in facts ? `token_${hashToken(facts.token)}` : facts.on ? `${limiterIpKey(facts.ip)}_${facts.on}` : limiterIpKey(facts.ip),
  }),
  /** burst + slow as one union (rule 3): the IP, `<IP>_list-metadata` for listing, `<IP>_verify` */
  generalUnionLimiter: count({
    storage: 'api-tokens-general-union',
    config: `${API}.generalUnionLimiter`,
    parts: (rl) => [rl.apiTokensLimiters.generalUnionLimiter.burst, rl.apiTokensLimiters.generalUnionLimiter.slow],
    permanentAfter: 1,
    key: ({ ip, on }: { ip: string; on?: 'list-metadata' | 'verify' }) => (on ? `${limiterIpKey(ip)}_${on}` : limiterIpKey(ip)),
  }),
  newTokenCreationLimiter: operation('newTokenCreationLimiter', 'new-token'),
  revokeTokensLimiter: operation('revokeTokensLimiter', 'revoke'),
  getMetadataTokenLimiter: operation('getMetadataTokenLimiter', 'metadata'),
  rotationRateLimiter: operation('rotationRateLimiter', 'rotate'),
  ipRestrictionUpdate: operation('ipRestrictionUpdate', 'ip-restriction-update'),
  privilegeUpdate: operation('privilegeUpdate', 'privilege-update'),
  revokeAllLimiter: operation('revokeTokensLimiter', 'revoke-all'),

  signup: design('signup', 'signup', byIp),
  /**
   * Per IP, counting failures: every attempt spends a point when admitted (so parallel guesses are
   * bounded before any of them is judged), and a right password gives its point back
   * (login-delay.ts). The limit is there against guessing: counting successes too would lock out
   * everyone behind one address (an office, a family) by their own sign-ins.
   */
  loginIp: count({
    storage: 'login-ip',
    config: 'rate_limiters.login (points times LOGIN_IP_FACTOR)',
    parts: (rl) => ({ ...rl.login, points: rl.login.points * LOGIN_IP_FACTOR }),
    permanentAfter: 0,
    key: byIp,
  }),
  /** IP + case-folded email: reset by a successful login */
  loginAccount: design('login', 'login-account', ({ ip, email }: { ip: string; email: string }) => `${limiterIpKey(ip)}_${email.trim().toLowerCase()}`),
  /** per account, or per account on a device that signed in to it before (login-delay.ts) */
  loginAccountDelay: delay({
    storage: 'login-account-delay',
    config: 'rate_limiters.loginAccountDelay',
    // `freeAttempts` counts failures that cost no wait, and the attempt after them is heard at once
    // too: a person who mistyped that often gets in with the right password without waiting (a
    // success forgives the count), while a guesser gains one attempt per window
    spec: (rl) => ({ ...rl.loginAccountDelay, freeAttempts: rl.loginAccountDelay.freeAttempts + 1 }),
    key: ({ email, device }: { email: string; device?: number }) => loginDelaySubject(email, device),
  }),
  oauth: design('oauth', 'oauth', byIp),
  refresh: design('refresh', 'refresh', byIp),
  /** link previews (`preview_<IP>`) and link issuing (`ip_<IP>`), counted apart */
  links: design('links', 'auth.links', ({ ip, on }: { ip: string; on: 'preview' | 'ip' }) => `${on}_${limiterIpKey(ip)}`),
  /** code and link submissions, one budget per kind of submission */
  codes: design('codes', 'auth.codes', ({ ip, on }: { ip: string; on: 'ip' | 'verify' | 'undo' | 'reset' }) => `${on}_${limiterIpKey(ip)}`),
  /** per IP, and per IP + address so one client cannot flood one mailbox */
  forgotPassword: design('forgotPassword', 'auth.forgotPassword', ({ ip, email }: { ip: string; email?: string }) =>
    email ? `ip_${limiterIpKey(ip)}_${email.toLowerCase()}` : `ip_${limiterIpKey(ip)}`,
  ),
  /** email sign-in requests: per IP, and per IP + address (the address under its SHA-256, as `mailbox` keeps it) */
  emailSignIn: design('emailSignIn', 'auth.emailSignIn', ({ ip, email }: { ip: string; email?: string }) =>
    email ? `ip_${limiterIpKey(ip)}_${createHash('sha256').update(email.toLowerCase()).digest('base64url')}` : `ip_${limiterIpKey(ip)}`,
  ),
  /** mails a signed-in user makes the IAM send */
  emails: design('emails', 'auth.emails', byUser),
  check: design('check', 'auth.check', byIp),
  /** passkey sign-in options: every load of the sign-in page asks for them (autofill), so not the login budget */
  passkeyOptions: design('passkeyOptions', 'auth.passkeyOptions', byIp),
  resendVerification: design('resendVerification', 'auth.resendVerification', byUser),
  /** the account's data export: a read of every table of the account, so a few an hour per user */
  export: design('export', 'auth.export', byUser),
  /** picture uploads: each writes up to profilePicture.maxBytes, so a few an hour per user */
  picture: design('picture', 'auth.picture', byUser),
  /** link mails per recipient: the SHA-256 of the case-folded address (as the unique index on lower(email) folds it) */
  mailbox: design('mailbox', 'auth.mailbox', ({ email }: { email: string }) =>
    `address_${createHash('sha256').update(normalizeEmail(email).toLowerCase()).digest('base64url')}`,
  ),
  /**
   * Device flow user code submissions (RFC 8628 section 5.1), per IP and per the provider's browser
   * session (its cookie's SHA-256): a wrong code names no device code, so these are the subjects.
   */
  deviceUserCode: design('deviceUserCode', 'oidc.deviceUserCode', (facts: { ip: string } | { session: string }) =>
    'ip' in facts ? `ip_${limiterIpKey(facts.ip)}` : `session_${createHash('sha256').update(facts.session).digest('base64url')}`,
  ),
  /** dynamic client registrations per client IP: each stores a client row, so open registration stays bounded */
  oidcRegistration: design('oidcRegistration', 'oidc.registration', byIp),
  /**
   * an organization's webhook changes and test events per user: anyone may found an organization,
   * and each call resolves a host name or queues a delivery on the worker the platform shares
   */
  organizationWebhooks: design('organizationWebhooks', 'orgs.webhooks', byUser),
} satisfies { [N in LimiterName]: CountRule<never> | DelayRule<never> }

type Rules = typeof RULES
export type CountLimiterName = { [N in LimiterName]: Rules[N] extends { kind: 'count' } ? N : never }[LimiterName]
export type DelayLimiterName = Exclude<LimiterName, CountLimiterName>
/** The request facts a limiter's key is made of. */
export type KeyFacts<N extends LimiterName> = Parameters<Rules[N]['key']>[0]

export interface KeyedLimiter<F> {
  readonly name: LimiterName
  /** Spends one point for the facts' key, or none when refused. */
  consume(facts: F): Promise<LimitDecision>
  /** Forgets windows, blocks and rejections of the key (never its permanent block). */
  reset(facts: F): Promise<void>
  /** The full store keys `reset` deletes (several subjects forgotten in one store call: login-delay.ts). */
  resetKeys(facts: F): string[]
  /** Whether any of the facts' keys is blocked, and which of them hold state a reset would clear (one round trip). */
  inspect(facts: F[]): Promise<{ blocked: boolean; dirty: F[] }>
  /** reset() of several facts in one round trip. */
  resetAll(facts: F[]): Promise<void>
  /** consume()'s step for the facts, run with others in one store call; `settle` its decision afterwards. */
  step(facts: F): LimitStep
  settle(decision: LimitDecision): LimitDecision
  /** `points` to give back to the facts' key, run with other settlements in one store call (login-delay.ts). */
  refundStep(facts: F, points: number): LimitRefund
}

export interface KeyedDelay<F> {
  attempt(facts: F): Promise<DelayDecision>
  /** The delay's attempt for `facts.marked` while the store key `markKey` (a full key) lives, else for `facts.unmarked`: a step run after limiters' steps in one store call. */
  stepByMark(markKey: string, facts: { marked: F; unmarked: F }): MarkedDelayStep
  forgive(facts: F): Promise<void>
  /** The full store keys `forgive` deletes. */
  forgiveKeys(facts: F): string[]
}

/** What a limiter is built from: the booted context satisfies it. */
export type LimiterDeps = { store: SharedStore; config: Pick<IamConfig, 'rate_limiters'> }

// One instance per store and configuration: a booted context builds each limiter once.
const built = new WeakMap<SharedStore, WeakMap<object, Map<LimiterName, RateLimiter | ProgressiveDelay>>>()

function instance(deps: LimiterDeps, name: LimiterName): RateLimiter | ProgressiveDelay {
  let byConfig = built.get(deps.store)
  if (!byConfig) built.set(deps.store, (byConfig = new WeakMap()))
  let byName = byConfig.get(deps.config)
  if (!byName) byConfig.set(deps.config, (byName = new Map()))
  let made = byName.get(name)
  if (!made) {
    const rule: CountRule<never> | DelayRule<never> = RULES[name]
    const rl = deps.config.rate_limiters
    made =
      rule.kind === 'count'
        ? createRateLimiter(deps.store, rule.storage, rule.parts(rl), rule.permanentAfter ? { permanentAfter: rule.permanentAfter } : {})
        : createProgressiveDelay(deps.store, rule.storage, rule.spec(rl))
    byName.set(name, made)
  }
  return made
}

/** The counting limiter `name`, keyed by its rule. */
export function useLimiter<N extends CountLimiterName>(deps: LimiterDeps, name: N): KeyedLimiter<KeyFacts<N>> {
  const limiter = instance(deps, name) as RateLimiter
  const key = RULES[name].key as (facts: KeyFacts<N>) => string
  return {
    name,
    consume: (facts) => limiter.consume(key(facts)),
    reset: (facts) => limiter.reset(key(facts)),
    resetKeys: (facts) => limiter.resetKeys(key(facts)),
    inspect: async (facts) => {
      const keys = facts.map(key)
      const { blocked, dirty } = await limiter.inspect(keys)
      return { blocked, dirty: facts.filter((_, i) => dirty.includes(keys[i]!)) }
    },
    resetAll: (facts) => limiter.resetAll(facts.map(key)),
    step: (facts) => limiter.step(key(facts)),
    settle: (decision) => limiter.settle(decision),
    refundStep: (facts, points) => limiter.refundStep(key(facts), points),
  }
}

/** The progressive delay `name`, keyed by its rule. */
export function useDelay<N extends DelayLimiterName>(deps: LimiterDeps, name: N): KeyedDelay<KeyFacts<N>> {
  const limiter = instance(deps, name) as ProgressiveDelay
  const key = RULES[name].key as (facts: KeyFacts<N>) => string
  return {
    attempt: (facts) => limiter.attempt(key(facts)),
    stepByMark: (markKey, facts) => limiter.stepByMark(markKey, { marked: key(facts.marked), unmarked: key(facts.unmarked) }),
    forgive: (facts) => limiter.forgive(key(facts)),
    forgiveKeys: (facts) => limiter.forgiveKeys(key(facts)),
  }
}

/** A limiter's rule as documentation and tests read it. */
export function limiterRule(name: LimiterName): { kind: 'count' | 'delay'; storage: string; config: string; permanentAfter: number } {
  const rule: CountRule<never> | DelayRule<never> = RULES[name]
  return { kind: rule.kind, storage: rule.storage, config: rule.config, permanentAfter: rule.kind === 'count' ? rule.permanentAfter : 0 }
}
