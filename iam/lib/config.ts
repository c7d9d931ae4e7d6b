/**
 * Loads the IAM configuration: the IAM_CONFIG JSON file, then DATABASE_URL / DATABASE_REPLICA_URLS / REDIS_URL / SMTP_URL,
 * through the strict schema. A bad file stops the start with a message naming each bad key.
 */
import { readFileSync } from 'node:fs'
import type { z } from 'zod'
import { configSchema, type IamConfig } from './config-schema'
import { parseRedisTarget, RedisTargetError } from './storage/redis-target'

export class ConfigError extends Error {
  override name = 'ConfigError'
}

type Env = Record<string, string | undefined>

/** "service.proxy.foo: unknown key" lines, one per problem. */
export function formatConfigIssues(issues: z.core.$ZodIssue[]): string {
  return issues
    .flatMap((issue) => {
      const at = issue.path.map(String).join('.')
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => `${at ? `${at}.` : ''}${key}: unknown key`)
      }
      return [`${at || '(root)'}: ${issue.message}`]
    })
    .join('\n')
}

function parseSmtpUrl(url: string) {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new ConfigError('SMTP_URL: not a URL (expected smtp://user:pass@host:port or smtps://...)')
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') {
    throw new ConfigError('SMTP_URL: the scheme must be smtp: or smtps:')
  }
  const secure = parsed.protocol === 'smtps:'
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    ...(parsed.username
      ? { auth: { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } }
      : {}),
  }
}

type Raw = Record<string, unknown>
const asObject = (value: unknown): Raw =>
  value && typeof value === 'object' && !Array.isArray(value) ? { ...(value as Raw) } : {}

const splitList = (value: string): string[] => value.split(',').map((item) => item.trim()).filter(Boolean)

/** Applies the environment overrides to the raw (unparsed) file content. */
export function applyEnvOverrides(raw: unknown, env: Env): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw
  const out: Raw = { ...(raw as Raw) }
  if (env.DATABASE_URL) out.database = { ...asObject(out.database), url: env.DATABASE_URL }
  // comma-separated; a comma inside a password is written %2C, as any reserved character of a URL
  if (env.DATABASE_REPLICA_URLS !== undefined) out.database = { ...asObject(out.database), replicas: splitList(env.DATABASE_REPLICA_URLS) }
  if (env.REDIS_URL) out.storage = { ...asObject(out.storage), driver: 'redis', url: env.REDIS_URL }
  if (env.SMTP_URL) out.email = { ...asObject(out.email), smtp: parseSmtpUrl(env.SMTP_URL) }
  return out
}

/** Parses raw configuration (already read) with the env overrides applied. Throws ConfigError. */
export function parseConfig(raw: unknown, env: Env = {}): IamConfig {
  const result = configSchema.safeParse(applyEnvOverrides(raw ?? {}, env))
  if (!result.success) {
    throw new ConfigError(`Invalid IAM configuration:\n${formatConfigIssues(result.error.issues)}`)
  }
  const config = result.data
  if (config.storage.driver === 'redis' && !config.storage.url) {
    throw new ConfigError('Invalid IAM configuration:\nstorage.url: required when storage.driver is "redis"')
  }
  if (config.storage.driver === 'redis' && config.storage.url) {
    try {
      parseRedisTarget(config.storage.url)
    } catch (error) {
      // the message names what is wrong, never the URL itself (it may carry a password)
      if (error instanceof RedisTargetError) throw new ConfigError(`Invalid IAM configuration:\nstorage.url: ${error.message}`)
      throw error
    }
  }
  const { registration } = config.oidc
  if (registration.enabled && registration.access === 'initialAccessToken' && !config.secrets.oidcRegistrationToken) {
    throw new ConfigError('Invalid IAM configuration:\nsecrets.oidcRegistrationToken: required when oidc.registration is enabled with access "initialAccessToken" (or set access: "open")')
  }
  return config
}

/** Reads IAM_CONFIG (when set) and parses it. */
export function loadConfig(env: Env = process.env): IamConfig {
  let raw: unknown = {}
  if (env.IAM_CONFIG) {
    let text: string
    try {
      text = readFileSync(env.IAM_CONFIG, 'utf8')
    } catch (error) {
      throw new ConfigError(`IAM_CONFIG: cannot read ${env.IAM_CONFIG} (${(error as NodeJS.ErrnoException).code})`)
    }
    try {
      raw = JSON.parse(text)
    } catch (error) {
      throw new ConfigError(`IAM_CONFIG: ${env.IAM_CONFIG} is not valid JSON (${(error as Error).message})`)
    }
  }
  return parseConfig(raw, env)
}

/** Generated dev secrets carry this prefix, so production can recognise and refuse them. */
export const DEV_SECRET_PREFIX = 'dev_'

/** What production refuses. Empty when the config may run in production. */
export function productionProblems(config: IamConfig): string[] {
  const problems: string[] = []
  const isDev = (value: string | undefined) => !value || value.startsWith(DEV_SECRET_PREFIX)
  if (!config.service.Hmac) problems.push('service.Hmac: required in production (the gateway signs every request)')
  else {
    if (isDev(config.service.Hmac.sharedSecret)) problems.push('service.Hmac.sharedSecret: a dev secret')
    if (!config.service.Hmac.requireBodyDigest) {
      problems.push('service.Hmac.requireBodyDigest: false is refused in production (version 1 signatures cover neither the body nor the credential headers)')
    }
  }
  if (isDev(config.secrets.codes)) problems.push('secrets.codes: missing or a dev secret')
  if (isDev(config.secrets.links)) problems.push('secrets.links: missing or a dev secret')
  if (!config.secrets.totpKeys?.length || config.secrets.totpKeys.some((k) => k.id.startsWith(DEV_SECRET_PREFIX))) {
    problems.push('secrets.totpKeys: missing or a dev key')
  }
  if (!config.secrets.accessTokenKeys?.length) problems.push('secrets.accessTokenKeys: missing (Ed25519 private JWKs)')
  if (config.oidc.enabled && !config.secrets.oidcKeys?.length) {
    problems.push('secrets.oidcKeys: missing (private JWKs for ID tokens; or set oidc.enabled: false)')
  }
  if (config.oidc.allowLoopbackRequests) problems.push('oidc.allowLoopbackRequests: for development and tests only (lets client-registered addresses reach this machine)')
  if (config.password.pepper && isDev(config.password.pepper)) problems.push('password.pepper: a dev secret')
  if (config.botChallenge.turnstile.allowLoopbackRequests) problems.push('botChallenge.turnstile.allowLoopbackRequests: for development and tests only (siteverify calls to this machine, over http)')
  if (config.webhooks.allowHttp) problems.push('webhooks.allowHttp: for development and tests only (webhook deliveries would travel unencrypted)')
  if (!config.service.singleNode) {
    if (!config.database.url || !/^postgres(ql)?:/.test(config.database.url)) {
      problems.push('database.url: PostgreSQL is required in production (or set service.singleNode: true)')
    }
    if (config.storage.driver !== 'redis') {
      problems.push('storage.driver: redis is required in production (or set service.singleNode: true)')
    }
  }
  return problems
}
