import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkEmailAddress, describeDnsError, isDisposableDomain, isEmailShape, normalizeEmail } from '../../iam/features/email-checks/email-checks'
import { startDnsServer, type DnsServer } from '../helpers/dns-server'

describe('email format', () => {
  it('accepts ordinary addresses and refuses malformed ones', () => {
    for (const ok of ['a@example.com', 'first.last+tag@sub.example.co.uk', "o'neil@example.org"]) expect(isEmailShape(ok)).toBe(true)
    for (const bad of ['plain', 'a@b', '@example.com', 'a@@example.com', 'a@-example.com', 'a b@example.com', `${'x'.repeat(65)}@example.com`]) {
      expect(isEmailShape(bad)).toBe(false)
    }
  })
  it('lower-cases the domain only and trims', () => {
    expect(normalizeEmail('  John.Doe@EXAMPLE.Com ')).toBe('John.Doe@example.com')
  })
  it('knows disposable providers, including wildcard subdomains', async () => {
    expect(await isDisposableDomain('mailinator.com')).toBe(true)
    expect(await isDisposableDomain('example.com')).toBe(false)
    expect(await isDisposableDomain('anything.33mail.com')).toBe(true)
  })
})

describe('DNS errors', () => {
  it('names an unreachable resolver apart from a failing one and other lookup errors', () => {
    expect(describeDnsError('ECONNREFUSED')).toBe('DNS resolver unreachable')
    expect(describeDnsError('ETIMEOUT')).toBe('DNS resolver unreachable')
    expect(describeDnsError('ESERVFAIL')).toBe('DNS resolver failure')
    expect(describeDnsError('EREFUSED')).toBe('DNS resolver failure')
    expect(describeDnsError('EBADRESP')).toBe('DNS lookup error')
  })
})

describe('MX check against a local DNS server', () => {
  let dns: DnsServer
  beforeAll(async () => {
    dns = await startDnsServer({ 'mail.test': { mx: ['mx1.mail.test'] }, 'web.test': { a: ['192.0.2.1'] }, 'nomail.test': { mx: [] } })
  })
  afterAll(() => dns?.stop())
  const settings = () => ({ mx: true, disposable: true, dnsServers: [dns.server], timeoutMs: 1000 })

  it('accepts a domain with an MX record', async () => {
    expect(await checkEmailAddress('a@mail.test', settings())).toEqual({ ok: true, email: 'a@mail.test' })
    expect(dns.queries.some((q) => q.name === 'mail.test' && q.type === 15)).toBe(true)
  })
  it('accepts a domain with only an A record (implicit MX, RFC 5321 §5.1)', async () => {
    expect((await checkEmailAddress('a@web.test', settings())).ok).toBe(true)
  })
  it('refuses a domain that does not exist', async () => {
    expect(await checkEmailAddress('a@missing.test', settings())).toEqual({ ok: false, reason: 'The email domain cannot receive mail' })
  })
  it('allows the address when DNS cannot be reached (an outage must not block signups) and warns "DNS resolver unreachable"', async () => {
    const warnings: [string, Record<string, unknown>][] = []
    const result = await checkEmailAddress('a@mail.test', { ...settings(), dnsServers: ['127.0.0.1:9'], timeoutMs: 300 }, (msg, fields) => warnings.push([msg, fields]))
    expect(result.ok).toBe(true)
    expect(warnings).toEqual([['could not check the mail domain: DNS resolver unreachable; the address is allowed', { code: 'ECONNREFUSED' }]])
  })
  it('warns nothing when the lookup gives a verdict', async () => {
    const warnings: string[] = []
    await checkEmailAddress('a@mail.test', settings(), (msg) => warnings.push(msg))
    await checkEmailAddress('a@missing.test', settings(), (msg) => warnings.push(msg))
    expect(warnings).toEqual([])
  })
  it('checks format and the disposable list before any lookup', async () => {
    const before = dns.queries.length
    expect(await checkEmailAddress('x@mailinator.com', settings())).toEqual({ ok: false, reason: 'Disposable email addresses are not accepted' })
    expect(await checkEmailAddress('nope', settings())).toEqual({ ok: false, reason: 'Invalid email address' })
    expect(dns.queries.length).toBe(before)
  })
})
