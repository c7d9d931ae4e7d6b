/**
 * A domain as an organization claims it: IDNA to ASCII (UTS #46 through node's `domainToASCII`),
 * lower case, no trailing dot, at least two labels, and not a public suffix on its own (`com`,
 * `co.uk`): nobody can prove a registry's zone, and a claim on one would route every address under
 * it. The suffix list here is the common multi-label ones; the DNS proof is the real gate (a TXT
 * record under the name itself), this only refuses the obvious mistakes early with a clear answer.
 */
import { domainToASCII } from 'node:url'

/** Second-level public suffixes (Public Suffix List, ICANN section) that people type most often. */
const MULTI_LABEL_SUFFIXES = new Set([
  'co.uk', 'org.uk', 'ac.uk', 'gov.uk', 'ltd.uk', 'plc.uk', 'me.uk', 'net.uk',
  'com.au', 'net.au', 'org.au', 'edu.au', 'gov.au',
  'co.nz', 'org.nz', 'co.jp', 'ne.jp', 'or.jp', 'ac.jp', 'co.kr', 'or.kr',
  'com.br', 'net.br', 'org.br', 'com.cn', 'net.cn', 'org.cn', 'com.mx', 'com.ar', 'com.tr', 'com.sg', 'com.hk', 'com.tw',
  'co.in', 'net.in', 'org.in', 'co.za', 'org.za', 'co.il', 'com.pl', 'com.es', 'co.id', 'com.my', 'com.ph', 'com.vn',
  'github.io', 'herokuapp.com', 'vercel.app', 'netlify.app', 'pages.dev', 'azurewebsites.net', 'cloudfront.net', 'appspot.com', 'blogspot.com',
])

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

export type DomainNameResult = { ok: true; domain: string } | { ok: false; code: 'domain_invalid' | 'domain_public_suffix' }

/** The claimed name, normalised; or why it cannot be claimed. */
export function normalizeDomain(input: string): DomainNameResult {
  const trimmed = input.trim().replace(/\.$/, '')
  if (trimmed.length === 0 || trimmed.length > 253 || /[/:@\s*]/.test(trimmed)) return { ok: false, code: 'domain_invalid' }
  const ascii = domainToASCII(trimmed)
  if (!ascii || ascii.length > 253) return { ok: false, code: 'domain_invalid' }
  const labels = ascii.split('.')
  if (!labels.every((label) => LABEL.test(label))) return { ok: false, code: 'domain_invalid' }
  // an IP address is not a domain an organization can prove by DNS
  if (/^[0-9]+$/.test(labels.at(-1)!)) return { ok: false, code: 'domain_invalid' }
  if (labels.length < 2 || MULTI_LABEL_SUFFIXES.has(ascii)) return { ok: false, code: 'domain_public_suffix' }
  return { ok: true, domain: ascii }
}

/** The address's domain, normalised as a claimed one is; null when the address has none that could be claimed. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf('@')
  if (at < 1) return null
  const result = normalizeDomain(email.slice(at + 1))
  return result.ok ? result.domain : null
}

/** The TXT record's name and value an owner publishes (docs/enterprise.md). */
export const VERIFICATION_PREFIX = 'identity-platform-verification='
export const verificationRecordName = (domain: string) => `_identity-platform.${domain}`
export const verificationValue = (token: string) => `${VERIFICATION_PREFIX}${token}`
