/**
 * Email address checks for signup and email change: format, disposable provider, and a domain that
 * can receive mail (MX, or an A/AAAA fallback per RFC 5321 §5.1). DNS goes through node's Resolver
 * with `emailChecks.dnsServers` when set. Only "no such domain / no records" rejects: an unreachable
 * resolver, a timeout or a server failure allows the address (an outage must not block every
 * signup) and is reported with its cause.
 */
import { Resolver } from 'node:dns/promises'

export type EmailCheckResult = { ok: true; email: string } | { ok: false; reason: string }

export interface EmailCheckSettings {
  mx: boolean
  disposable: boolean
  dnsServers?: readonly string[]
  timeoutMs?: number
}

// Pragmatic shape (WHATWG "valid email address" with a dotted domain): no quoted local parts.
const EMAIL_SHAPE = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/

interface DisposableLists {
  exact: Set<string>
  wildcard: Set<string>
}

let disposableLists: Promise<DisposableLists> | undefined

/**
 * The provider lists (about 120,000 domains: most of the idle IAM's heap when they were imported
 * at start, docs/performance.md, "Idle RSS") load on the first check that needs them: only signup and email
 * change ask, and a build bundles them in a chunk of their own.
 */
function loadDisposableLists(): Promise<DisposableLists> {
  disposableLists ??= Promise.all([import('disposable-email-domains/index.json'), import('disposable-email-domains/wildcard.json')]).then(
    ([exact, wildcard]) => ({ exact: new Set<string>(exact.default as string[]), wildcard: new Set<string>(wildcard.default as string[]) }),
  )
  return disposableLists
}

/** Trimmed, domain lower-cased (the local part keeps its case, RFC 5321 §2.4). */
export function normalizeEmail(email: string): string {
  const trimmed = email.trim()
  const at = trimmed.lastIndexOf('@')
  return at < 0 ? trimmed : `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`
}

export function isEmailShape(email: string): boolean {
  return email.length <= 254 && EMAIL_SHAPE.test(email) && email.split('@')[0]!.length <= 64
}

/** True when the domain, or a parent of it in the wildcard list, is a disposable provider. */
export async function isDisposableDomain(domain: string): Promise<boolean> {
  const { exact, wildcard } = await loadDisposableLists()
  const d = domain.toLowerCase()
  if (exact.has(d)) return true
  const labels = d.split('.')
  for (let i = 1; i < labels.length - 1; i++) if (wildcard.has(labels.slice(i).join('.'))) return true
  return wildcard.has(d)
}

const NO_DOMAIN = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN'])
// c-ares codes (node:dns): no answer came back from the resolver at all ...
const RESOLVER_UNREACHABLE = new Set(['ECONNREFUSED', 'ETIMEOUT', 'ETIMEDOUT', 'ECONNRESET'])
// ... or the resolver answered that it could not resolve the name
const RESOLVER_FAILED = new Set(['ESERVFAIL', 'EREFUSED'])

/** Why a lookup gave no verdict; an operator reads it in the log to tell an outage from a bad domain. */
export type DnsProblem = 'DNS resolver unreachable' | 'DNS resolver failure' | 'DNS lookup error'

export function describeDnsError(code: string): DnsProblem {
  if (RESOLVER_UNREACHABLE.has(code)) return 'DNS resolver unreachable'
  if (RESOLVER_FAILED.has(code)) return 'DNS resolver failure'
  return 'DNS lookup error'
}

/** yes / no (the domain cannot receive mail) / unknown (the lookup failed, with why: allowed). */
export type MailDomainAnswer = { verdict: 'yes' | 'no' } | { verdict: 'unknown'; problem: DnsProblem; code: string }

const unknown = (error: unknown): MailDomainAnswer => {
  const code = (error as NodeJS.ErrnoException).code ?? ''
  return { verdict: 'unknown', problem: describeDnsError(code), code }
}

export async function domainAcceptsMail(domain: string, settings: EmailCheckSettings): Promise<MailDomainAnswer> {
  const resolver = new Resolver({ timeout: settings.timeoutMs ?? 2000, tries: 1 })
  if (settings.dnsServers?.length) resolver.setServers([...settings.dnsServers])
  try {
    const mx = await resolver.resolveMx(domain)
    // RFC 7505 null MX ("." with preference 0) says the domain accepts no mail
    if (mx.length && mx.every((r) => r.exchange === '' || r.exchange === '.')) return { verdict: 'no' }
    if (mx.length) return { verdict: 'yes' }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? ''
    if (!NO_DOMAIN.has(code)) return unknown(error)
    if (code === 'ENOTFOUND' || code === 'NXDOMAIN') return { verdict: 'no' }
  }
  // no MX records: the implicit MX is the A/AAAA record (RFC 5321 §5.1)
  try {
    const a = await resolver.resolve4(domain)
    return { verdict: a.length ? 'yes' : 'no' }
  } catch (error) {
    return NO_DOMAIN.has((error as NodeJS.ErrnoException).code ?? '') ? { verdict: 'no' } : unknown(error)
  }
}

/**
 * Runs the checks in cost order: format, disposable list, DNS. A DNS lookup that gives no verdict
 * allows the address and is reported through `warn`, naming the resolver problem, so
 * "the resolver is down" is never mistaken for "the domain has no mail server".
 */
export async function checkEmailAddress(
  raw: string,
  settings: EmailCheckSettings,
  warn: (msg: string, fields: Record<string, unknown>) => void = () => {},
): Promise<EmailCheckResult> {
  const email = normalizeEmail(raw)
  if (!isEmailShape(email)) return { ok: false, reason: 'Invalid email address' }
  const domain = email.slice(email.lastIndexOf('@') + 1)
  if (settings.disposable && (await isDisposableDomain(domain))) return { ok: false, reason: 'Disposable email addresses are not accepted' }
  if (settings.mx) {
    const answer = await domainAcceptsMail(domain, settings)
    if (answer.verdict === 'no') return { ok: false, reason: 'The email domain cannot receive mail' }
    // the address, even its domain, stays out of the log: the code says enough to act on
    if (answer.verdict === 'unknown') warn(`could not check the mail domain: ${answer.problem}; the address is allowed`, { code: answer.code })
  }
  return { ok: true, email }
}
