/**
 * What an admin command runs with: the server's own configuration (IAM_CONFIG, DATABASE_URL,
 * REDIS_URL ... through lib/config.ts, exactly as plugins/00.boot.ts reads them), its database
 * and shared store. The dev profile migrates first and takes the generated dev secrets
 * (<dataDir>/iam/secrets.json), as the server does on start: a client secret the CLI seals must
 * open in the server.
 */
import type { IamContext } from '../context'
import { createDatabase, migrateToLatest } from '../db/database'
import { loadConfig } from '../lib/config'
import { deepFreeze, withDevSecrets } from '../lib/dev-secrets'
import { createLogger } from '../../shared/log'
import { createStore } from '../lib/storage'
import { createAccessTokenState } from '../features/tokens/token-service'
import { buildSessionHooks } from '../session-hooks'

export interface CliContext extends IamContext {
  close(): Promise<void>
}

export const isProduction = (env: NodeJS.ProcessEnv = process.env): boolean => env['NODE_ENV'] === 'production'

/** Opens the database (and storage unless `storage: false`); the caller closes. */
export async function openCliContext(options: { migrate?: boolean; storage?: boolean } = {}): Promise<CliContext> {
  const loaded = loadConfig(process.env)
  const config = deepFreeze(isProduction() ? loaded : withDevSecrets(loaded))
  // warnings and errors of the features go to stderr: stdout is the command's answer
  const log = createLogger('error', { app: 'iam-cli' }, (line) => process.stderr.write(`${line}\n`))
  const db = await createDatabase(config)
  try {
    if (options.migrate ?? !isProduction()) await migrateToLatest(db)
  } catch (error) {
    await db.destroy()
    throw error
  }
  const store = createStore({ driver: options.storage === false ? 'memory' : config.storage.driver, url: config.storage.url, prefix: config.storage.prefix })
  return {
    config,
    db,
    store,
    log,
    now: Date.now,
    accessTokens: createAccessTokenState(),
    sessionHooks: buildSessionHooks(),
    close: async () => {
      await Promise.allSettled([db.destroy(), store.close()])
    },
  }
}
