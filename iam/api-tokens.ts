/**
 * The API token library (docs/api-tokens.md): createApiKey, verifyApiKey, revokeApiKey,
 * rotateApiKey, getUserApiKeysMetaData, updateRestriction, updatePrivileges, getAllValidTokensList
 * and privateActionManager, each taking its parameters in a fixed order and answering a
 * `{ ok, date, data | reason }` envelope (features/api-tokens/results.ts). Dependencies are passed in, so it runs without the HTTP service:
 *
 * ```ts
 * import { createDatabase, migrateToLatest } from './db/database'
 * import { createLogger } from '../shared/log'
 * import { createApiTokenLibrary } from './api-tokens'
 *
 * const db = await createDatabase({ database: { url: process.env.DATABASE_URL }, service: { dataDir: '.data' } })
 * await migrateToLatest(db)
 * const tokens = createApiTokenLibrary({ db, config: { apiTokens: { limitTokensPerUser: 20 } }, log: createLogger('info') })
 * const created = await tokens.createApiKey(userId, 'full', 'CI deploy key')
 * if (created.ok) {
 *   const verified = await tokens.verifyApiKey(created.data.rawApiKey, false, 'full', false, false, '203.0.113.7')
 * }
 * ```
 *
 * The helpers do not authenticate their caller: call them only from trusted server code, and do
 * not let end users choose a privilege when business logic depends on it.
 */
export { createApiTokenLibrary, type ApiTokenLibrary, type ApiTokenLibraryDeps } from './features/api-tokens/library-operations'
export {
  PRIVILEGES, REASONS, CREATION_REASONS,
  type AllValidTokensList, type CreationSuccess, type ManagerAction, type ManagerResult, type Privilege,
  type Result, type RevokeSuccess, type RotationSuccess, type SingleTokenMeta, type TokenListEntry, type VerifySuccess,
} from './features/api-tokens/results'
