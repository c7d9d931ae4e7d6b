/**
 * Boot: configuration, dev secrets, database (+ migrations in the dev profile), shared storage.
 * A configuration the IAM must not run with stops the process here, with the reason, before it
 * answers anything. Shutdown (SIGTERM) closes the pools after in-flight requests and the work they
 * started finished.
 */
import { defineNitroPlugin } from 'nitropack/runtime'
import { setIamContext, type IamContext } from '../context'
import { cookieDomain } from '../http/cookies'
import { ConfigError, loadConfig, productionProblems } from '../lib/config'
import type { IamConfig } from '../lib/config-schema'
import { deepFreeze, withDevSecrets } from '../lib/dev-secrets'
import { clockNow } from '../lib/clock'
import { createLogger } from '../../shared/log'
import { createStore } from '../lib/storage'
import { drainBackgroundWork } from '../lib/background'
import { createDatabase, databaseKind, databasePoolStats, databaseReplicaStats, migrateToLatest, warmDatabase } from '../db/database'
import { useIamMetrics } from '../lib/metrics'
import { argon2idPool } from '../features/passwords/hash-pool'
import { createAccessTokenState } from '../features/tokens/token-service'
import { buildSessionHooks } from '../session-hooks'
import { openAdminBootstrap } from '../features/admin/bootstrap'
import { tracingActive } from '../../shared/tracing'
import { traceStore } from '../lib/tracing'

function fail(message: string): never {
  process.stderr.write(`${JSON.stringify({ level: 'error', time: new Date().toISOString(), msg: message })}\n`)
  process.exit(1)
}

async function boot(config: IamConfig, production: boolean): Promise<IamContext> {
  const log = createLogger(config.logLevel, { app: 'iam' })
  const db = await createDatabase(config)
  if (!production || process.env.IAM_TASK === 'db:migrate') {
    const result = await migrateToLatest(db)
    const applied = result.results?.map((r) => r.migrationName) ?? []
    if (applied.length) log.info('migrations applied', { applied })
    if (result.newer.length) log.warn('the database holds migrations of a later release: left as they are', { newer: result.newer })
  }
  if (process.env.IAM_TASK === 'db:migrate') {
    await db.destroy()
    log.info('db:migrate done')
    process.exit(0)
  }
  await warmDatabase(db)
  const store = createStore({ driver: config.storage.driver, url: config.storage.url, prefix: config.storage.prefix, timeoutMs: config.storage.timeoutMs, now: clockNow })
  if (!production) log.warn('dev profile: migrations run on start, missing secrets are generated under service.dataDir')
  if (!config.service.Hmac) log.warn('service.Hmac is not set: requests are not authenticated as coming from the gateway')
  else if (!config.service.Hmac.requireBodyDigest) {
    log.warn('service.Hmac.requireBodyDigest is false: version 1 signatures, which cover neither the body nor the credential headers, are accepted (refused in production)')
  }
  const domain = cookieDomain(config)
  if (domain) {
    log.warn(`refresh cookie is sent to every subdomain of ${domain}: any host under it that is compromised or user-controlled receives refresh tokens; unset jwt.refresh_tokens.domain for a host-only cookie`)
  }
  useIamMetrics().watchPool(() => databasePoolStats(db))
  useIamMetrics().watchReplicas(() => databaseReplicaStats(db))
  // the process's Argon2id threads, at the configured width (the hasher made later uses the same pool)
  const hashing = argon2idPool(config.password.argon2.threads)
  useIamMetrics().watchPasswordHashing(() => ({ running: hashing.running, waiting: hashing.waiting }))
  const bootstrapFile = await openAdminBootstrap({ db, config })
  // where the code is, never the code: whoever may read the server's files may use it
  if (bootstrapFile) log.info('no platform administrator yet: sign in and enter the code from this file at <gateway>/admin/bootstrap', { file: bootstrapFile })
  // the replicas' count only: their URLs may carry passwords
  log.info('iam ready', { database: databaseKind(config), storage: store.kind, ...(config.database.replicas.length ? { replicas: config.database.replicas.length } : {}) })
  // with tracing on (plugins/04.tracing.ts), every store operation is a span (lib/tracing.ts)
  const traced = tracingActive ? traceStore(store) : store
  return { config, db, store: traced, log, now: clockNow, accessTokens: createAccessTokenState(), sessionHooks: buildSessionHooks() }
}

export default defineNitroPlugin((nitroApp) => {
  // The node-server entry reads PORT/HOST after plugins ran: default to 127.0.0.1:3001 (loopback only).
  process.env.PORT ||= process.env.NITRO_PORT || '3001'
  process.env.HOST ||= process.env.NITRO_HOST || '127.0.0.1'
  // Read at run time: the bundler replaces the literal `process.env.NODE_ENV` with "production".
  const { env } = process
  const production = env['NODE_ENV'] === 'production'
  let config: IamConfig
  try {
    config = loadConfig(process.env)
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message)
    throw error
  }
  if (production) {
    const problems = productionProblems(config)
    if (problems.length) fail(`Refusing to start in production:\n${problems.join('\n')}`)
  } else {
    config = withDevSecrets(config)
  }
  const ready = boot(deepFreeze(config), production)
  ready.catch((error: Error) => fail(`IAM boot failed: ${error.message}`))
  setIamContext(ready)
  // Graceful shutdown is Nitro's (node-server preset): on SIGTERM/SIGINT it stops accepting, lets
  // in-flight requests finish (idle keep-alive connections are closed), force-closes what is left
  // after NITRO_SHUTDOWN_TIMEOUT, then calls 'close' and exits 0. The preset reads that variable
  // after plugins ran: service.shutdownTimeoutMs sets it unless the operator did.
  process.env.NITRO_SHUTDOWN_TIMEOUT ||= String(config.service.shutdownTimeoutMs)
  nitroApp.hooks.hook('close', async () => {
    const ctx = await ready
    // Work started by answered requests (mails) still needs the pools: it goes first, bounded.
    if (!(await drainBackgroundWork(config.service.shutdownTimeoutMs))) ctx.log.warn('shutdown: background work left unfinished')
    await Promise.allSettled([ctx.db.destroy(), ctx.store.close()])
    ctx.log.info('shutdown: pools closed')
  })
})
