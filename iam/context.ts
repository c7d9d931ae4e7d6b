/**
 * The IAM's process-wide dependencies, built once at boot (plugins/00.boot.ts) and handed to
 * features as arguments. Routes and middleware reach it through `useIam()`; features never do.
 */
import type { Kysely } from 'kysely'
import type { IamConfig } from './lib/config-schema'
import type { Logger } from '../shared/log'
import type { Database } from './db/schema'
import type { SharedStore } from './lib/storage'
import type { AccessTokenState } from './features/tokens/token-service'
import type { SessionHooks } from './features/sessions/session-hooks'

export interface IamContext {
  readonly config: Readonly<IamConfig>
  readonly db: Kysely<Database>
  readonly store: SharedStore
  readonly log: Logger
  /** ms since epoch (lib/clock.ts); features take `now` from here, never from Date.now, so the test build can move it */
  readonly now: () => number
  /** this instance's key ring and verified access tokens (features/tokens/token-service.ts) */
  readonly accessTokens: AccessTokenState
  /**
   * listeners other features register for session events, run inside the revoking transaction
   * (features/sessions/session-hooks.ts); every place that builds a context registers the same ones
   */
  readonly sessionHooks: SessionHooks
}

let current: IamContext | undefined
let ready: Promise<IamContext> | undefined

export function setIamContext(promise: Promise<IamContext>): void {
  ready = promise.then((ctx) => (current = ctx))
}

/** Resolves once boot finished (migrations ran, storage connected). */
export function whenIamReady(): Promise<IamContext> {
  if (!ready) throw new Error('IAM boot has not started')
  return ready
}

/** True once boot finished: the 00 middleware then has nothing to wait for. */
export function iamBooted(): boolean {
  return current !== undefined
}

/** The booted context; only valid after `whenIamReady()` resolved (the 00 middleware awaits it). */
export function useIam(): IamContext {
  if (!current) throw new Error('IAM context used before boot completed')
  return current
}
