import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, DEV_SECRET_PREFIX, loadConfig, parseConfig, productionProblems } from '../../iam/lib/config'
import { withDevSecrets } from '../../iam/lib/dev-secrets'

const strongSecret = 'x'.repeat(40)
const productionReady = {
  service: { Hmac: { clientId: 'gateway', sharedSecret: strongSecret } },
  database: { url: 'postgres://iam@db.internal/iam' },
  storage: { driver: 'redis', url: 'redis://cache.internal:6379' },
  secrets: {
    codes: strongSecret,
    links: strongSecret,
    accessTokenKeys: [{ kty: 'OKP', crv: 'Ed25519', x: 'a', d: 'b' }],
    totpKeys: [{ id: 'k2026', key: 'A'.repeat(43) }],
    oidcKeys: [{ kty: 'RSA', n: 'a', e: 'AQAB', d: 'b' }],
  },
}

const messageOf = (fn: () => unknown): string => {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error('expected a ConfigError')
}

describe('configuration schema', () => {
  it('fills every key with its default when the file is empty', () => {
    const config = parseConfig({})
    expect(config.jwt.access_tokens.expiresInMs).toBe(900_000)
    expect(config.jwt.refresh_tokens.reuseGraceMs).toBe(10_000)
    expect(config.magic_links.paths).toEqual({
      mfa: '/auth/mfa',
      passwordReset: '/reset-password',
      custom: '/auth/confirm',
      verifyEmail: '/auth/verify-email',
      undoEmailChange: '/auth/undo-email-change',
      orgInvitation: '/orgs/invitations/accept',
      deleteAccount: '/auth/delete-account',
      undoDeleteAccount: '/auth/undo-delete-account',
      emailSignIn: '/auth/email-sign-in',
    })
    // email as a first factor is opt-in: whoever reads the mailbox signs in
    expect(config.signIn).toEqual({ emailLink: false, emailCode: false, expiresInMs: 900_000 })
    expect(config.accountDeletion).toEqual({ undoWindowMs: 604_800_000, purgeEveryMs: 3_600_000 })
    expect(config.magic_links.verifyEmailExpiresInMs).toBe(86_400_000)
    expect(config.magic_links.undoEmailChangeExpiresInMs).toBe(604_800_000)
    expect(config.password.argon2).toEqual({ memoryCost: 19456, timeCost: 2, parallelism: 1 })
    expect(config.password.policy).toEqual({ minLength: 12, maxLength: 128, minScore: 3 })
    expect(config.apiTokens).toEqual({ limitTokensPerUser: 20, rateLimitOnSuccessfulRequest: false })
    expect(config.storage.driver).toBe('memory')
  })

  it('fills the documented defaults of the API token limiters (docs/configuration.md)', () => {
    const limiters = parseConfig({}).rate_limiters.apiTokensLimiters
    expect(limiters.consumptionRateLimiter).toEqual({ points: 10, duration: 60, blockDuration: 3600 })
    expect(limiters.generalUnionLimiter).toEqual({
      burst: { points: 1, duration: 1, blockDuration: 900 },
      slow: { points: 50, duration: 60, blockDuration: 3600 },
    })
    expect(limiters.operationRateLimits).toEqual({
      newTokenCreationLimiter: { points: 5, duration: 600, blockDuration: 3600 },
      revokeTokensLimiter: { points: 5, duration: 600, blockDuration: 7200 },
      getMetadataTokenLimiter: { points: 20, duration: 2, blockDuration: 1800 },
      rotationRateLimiter: { points: 5, duration: 600, blockDuration: 7200 },
      ipRestrictionUpdate: { points: 5, duration: 600, blockDuration: 1800 },
      privilegeUpdate: { points: 5, duration: 600, blockDuration: 1800 },
    })
  })

  it('keeps given values and defaults their siblings', () => {
    const config = parseConfig({ jwt: { refresh_tokens: { reuseGraceMs: 5000 } } })
    expect(config.jwt.refresh_tokens.reuseGraceMs).toBe(5000)
    expect(config.jwt.refresh_tokens.maxAllowedSessionsPerUser).toBe(5)
    expect(config.jwt.access_tokens.expiresInMs).toBe(900_000)
  })

  it('takes scope descriptions of an API in one text or per language, and refuses one for a scope the API does not list', () => {
    const server = { indicator: 'https://tools.example.com/mcp', scopes: ['tools:read', 'tools:run'] }
    const config = parseConfig({ oidc: { resourceServers: [{ ...server, scopeDescriptions: { 'tools:read': 'Read your tools', 'tools:run': { en: 'Run your tools', ja: 'ツールを実行する' } } }] } })
    expect(config.oidc.resourceServers[0]!.scopeDescriptions).toEqual({ 'tools:read': 'Read your tools', 'tools:run': { en: 'Run your tools', ja: 'ツールを実行する' } })
    expect(messageOf(() => parseConfig({ oidc: { resourceServers: [{ ...server, scopeDescriptions: { 'tools:write': 'Write' } }] } }))).toContain('scopeDescriptions')
    expect(messageOf(() => parseConfig({ oidc: { resourceServers: [{ ...server, scopeDescriptions: { 'tools:read': { xx: 'Read' } } }] } }))).toContain('scopeDescriptions')
  })

  it('refuses an unknown key and names it with its path', () => {
    expect(messageOf(() => parseConfig({ service: { proxy: { trsut: true } } }))).toContain('service.proxy.trsut: unknown key')
    expect(messageOf(() => parseConfig({ databse: {} }))).toContain('databse: unknown key')
  })

  it('refuses a value of the wrong type and names the key', () => {
    const message = messageOf(() => parseConfig({ jwt: { access_tokens: { expiresInMs: '15m' } } }))
    expect(message).toContain('jwt.access_tokens.expiresInMs')
    expect(message).toMatch(/expected number/)
  })

  it('refuses a value outside its range and names the key', () => {
    expect(messageOf(() => parseConfig({ password: { policy: { minLength: 4 } } }))).toContain('password.policy.minLength')
    expect(messageOf(() => parseConfig({ password: { policy: { minScore: 5 } } }))).toContain('password.policy.minScore')
    expect(messageOf(() => parseConfig({ anomalies: { ipDrift: 'sometimes' } }))).toContain('anomalies.ipDrift')
    expect(messageOf(() => parseConfig({ service: { Hmac: { clientId: 'g', sharedSecret: 'short' } } }))).toContain(
      'service.Hmac.sharedSecret',
    )
  })

  it('lists every problem of a file at once', () => {
    const message = messageOf(() => parseConfig({ foo: 1, codes: { ttlMs: -1 } }))
    expect(message).toContain('foo: unknown key')
    expect(message).toContain('codes.ttlMs')
  })

  it('refuses the redis driver without a url', () => {
    expect(messageOf(() => parseConfig({ storage: { driver: 'redis' } }))).toContain('storage.url')
  })
})

describe('dynamic client registration', () => {
  it('is off by default; enabled, it needs the initial access token unless opened on purpose', () => {
    expect(parseConfig({}).oidc.registration).toEqual({ enabled: false, access: 'initialAccessToken', management: true })
    expect(() => parseConfig({ oidc: { registration: { enabled: true } } })).toThrow(/secrets\.oidcRegistrationToken: required/)
    expect(parseConfig({ oidc: { registration: { enabled: true, access: 'open' } } }).oidc.registration.access).toBe('open')
    expect(parseConfig({ oidc: { registration: { enabled: true } }, secrets: { oidcRegistrationToken: 'x'.repeat(32) } }).oidc.registration.enabled).toBe(true)
  })
})

describe('environment overrides', () => {
  it('DATABASE_URL, REDIS_URL and SMTP_URL override the file', () => {
    const config = parseConfig(
      { database: { url: 'postgres://file/db' } },
      {
        DATABASE_URL: 'postgres://env/db',
        REDIS_URL: 'redis://127.0.0.1:6379',
        SMTP_URL: 'smtps://mailer:p%40ss@mail.example.com:2465',
      },
    )
    expect(config.database.url).toBe('postgres://env/db')
    expect(config.storage).toMatchObject({ driver: 'redis', url: 'redis://127.0.0.1:6379' })
    expect(config.email.smtp).toEqual({
      host: 'mail.example.com',
      port: 2465,
      secure: true,
      auth: { user: 'mailer', pass: 'p@ss' },
    })
  })

  it('DATABASE_REPLICA_URLS sets database.replicas, comma separated, and replicas are empty by default', () => {
    expect(parseConfig({}).database.replicas).toEqual([])
    const config = parseConfig(
      { database: { url: 'postgres://file/db', replicas: ['postgres://file-replica/db'] } },
      { DATABASE_REPLICA_URLS: 'postgres://iam:s3cret@replica-a:5433/iam, postgresql://replica-b/iam' },
    )
    expect(config.database.replicas).toEqual(['postgres://iam:s3cret@replica-a:5433/iam', 'postgresql://replica-b/iam'])
    expect(parseConfig({ database: { url: 'postgres://file/db', replicas: ['postgres://r/db'] } }, { DATABASE_REPLICA_URLS: '' }).database.replicas).toEqual([])
  })

  it('refuses a replica that is not a postgres URL, or replicas beside the embedded database, without echoing the URL', () => {
    const notPostgres = messageOf(() => parseConfig({ database: { url: 'postgres://h/db', replicas: ['mysql://iam:s3cret@h/db'] } }))
    expect(notPostgres).toContain('database.replicas.0: a postgres:// URL')
    expect(notPostgres).not.toContain('s3cret')
    const embedded = messageOf(() => parseConfig({}, { DATABASE_REPLICA_URLS: 'postgres://iam:s3cret@h/db' }))
    expect(embedded).toContain('database.replicas: needs database.url to be PostgreSQL')
    expect(embedded).not.toContain('s3cret')
  })

  it('refuses an SMTP_URL that is not smtp: or smtps:', () => {
    expect(messageOf(() => parseConfig({}, { SMTP_URL: 'http://mail' }))).toContain('SMTP_URL')
  })

  it('names IAM_CONFIG when the file is missing or not JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'))
    expect(messageOf(() => loadConfig({ IAM_CONFIG: join(dir, 'absent.json') }))).toMatch(/IAM_CONFIG: cannot read .*ENOENT/)
    writeFileSync(join(dir, 'bad.json'), '{ "service": ')
    expect(messageOf(() => loadConfig({ IAM_CONFIG: join(dir, 'bad.json') }))).toMatch(/IAM_CONFIG: .* is not valid JSON/)
  })
})

describe('production refusals', () => {
  it('accepts a complete production configuration', () => {
    expect(productionProblems(parseConfig(productionReady))).toEqual([])
  })

  it('refuses a missing HMAC configuration, missing secrets and embedded storage', () => {
    const problems = productionProblems(parseConfig({})).join('\n')
    expect(problems).toContain('service.Hmac')
    expect(problems).toContain('secrets.codes')
    expect(problems).toContain('secrets.links')
    expect(problems).toContain('secrets.accessTokenKeys')
    expect(problems).toContain('secrets.totpKeys')
    expect(problems).toContain('database.url')
    expect(problems).toContain('storage.driver')
  })

  it('refuses generated dev secrets', () => {
    const devSecret = `${DEV_SECRET_PREFIX}${'y'.repeat(40)}`
    const problems = productionProblems(
      parseConfig({ ...productionReady, secrets: { ...productionReady.secrets, codes: devSecret } }),
    )
    expect(problems).toEqual([expect.stringContaining('secrets.codes')])
  })

  it('refuses service.Hmac.requireBodyDigest: false (version 1 signatures), which the dev profile accepts', () => {
    const hmac = { ...productionReady.service.Hmac, requireBodyDigest: false }
    const config = parseConfig({ ...productionReady, service: { ...productionReady.service, Hmac: hmac } })
    expect(config.service.Hmac?.requireBodyDigest).toBe(false)
    expect(productionProblems(config)).toEqual([expect.stringContaining('service.Hmac.requireBodyDigest')])
  })

  it('refuses oidc.allowLoopbackRequests (the provider calling loopback addresses a client registered)', () => {
    const config = parseConfig({ ...productionReady, oidc: { allowLoopbackRequests: true } })
    expect(productionProblems(config)).toEqual([expect.stringContaining('oidc.allowLoopbackRequests')])
  })

  it('allows PGlite and memory storage only with service.singleNode', () => {
    const single = parseConfig({
      ...productionReady,
      service: { ...productionReady.service, singleNode: true },
      database: {},
      storage: {},
    })
    expect(productionProblems(single)).toEqual([])
  })
})

describe('dev secrets', () => {
  it('generates missing secrets once, keeps them with mode 600 and reuses them on the next start', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dev-secrets-'))
    const first = withDevSecrets(parseConfig({ service: { dataDir } }))
    const second = withDevSecrets(parseConfig({ service: { dataDir } }))
    expect(first.secrets.codes).toMatch(new RegExp(`^${DEV_SECRET_PREFIX}`))
    expect(first.secrets.codes).not.toBe(first.secrets.links)
    expect(second.secrets).toEqual(first.secrets)
    const path = join(dataDir, 'iam', 'secrets.json')
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(first.secrets.totpKeys?.[0]?.id).toMatch(new RegExp(`^${DEV_SECRET_PREFIX}`))
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ codes: first.secrets.codes, links: first.secrets.links, totpKey: first.secrets.totpKeys?.[0]?.key })
  })

  it('leaves configured secrets untouched', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dev-secrets-'))
    const config = withDevSecrets(parseConfig({ service: { dataDir }, secrets: { codes: strongSecret, links: strongSecret } }))
    expect(config.secrets.codes).toBe(strongSecret)
  })
})
