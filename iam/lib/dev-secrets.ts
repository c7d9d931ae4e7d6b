/**
 * Dev profile only: secrets the config leaves out are generated once and kept in
 * <dataDir>/iam/secrets.json (mode 600), so restarts keep sessions and links valid.
 * They carry DEV_SECRET_PREFIX, which production refuses.
 */
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { DEV_SECRET_PREFIX } from './config'
import type { IamConfig } from './config-schema'

type DevSecrets = { codes: string; links: string; totpKey: string }

export function devSecretsPath(config: Pick<IamConfig, 'service'>): string {
  return resolve(join(config.service.dataDir, 'iam', 'secrets.json'))
}

export function withDevSecrets(config: IamConfig): IamConfig {
  if (config.secrets.codes && config.secrets.links && config.secrets.totpKeys) return config
  const path = devSecretsPath(config)
  let kept: Partial<DevSecrets> = {}
  if (existsSync(path)) kept = JSON.parse(readFileSync(path, 'utf8')) as Partial<DevSecrets>
  const generate = () => `${DEV_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`
  // the TOTP key is raw key material (32 bytes); its id carries the dev prefix instead
  const secrets: DevSecrets = { codes: kept.codes ?? generate(), links: kept.links ?? generate(), totpKey: kept.totpKey ?? randomBytes(32).toString('base64url') }
  if (secrets.codes !== kept.codes || secrets.links !== kept.links || secrets.totpKey !== kept.totpKey) {
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, JSON.stringify(secrets), { mode: 0o600 })
    chmodSync(path, 0o600)
  }
  return {
    ...config,
    secrets: {
      ...config.secrets,
      codes: config.secrets.codes ?? secrets.codes,
      links: config.secrets.links ?? secrets.links,
      totpKeys: config.secrets.totpKeys ?? [{ id: `${DEV_SECRET_PREFIX}totp`, key: secrets.totpKey }],
    },
  }
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const item of Object.values(value)) deepFreeze(item)
  }
  return value
}
