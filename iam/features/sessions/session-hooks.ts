/**
 * What other features do when sessions end, without the sessions feature knowing them: a feature
 * registers a listener on the context's `sessionHooks` where the context is built
 * (plugins/00.boot.ts, cli/context.ts), and the revocation runs it inside its own transaction, so
 * the sessions and what hangs on them (the OpenID Provider's grants, features/oidc/accounts.ts)
 * end together or not at all.
 */
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/schema'

/** Runs inside the revoking transaction: throwing rolls the revocation back. */
export type AccountSessionsRevokedListener = (trx: Kysely<Database> | Transaction<Database>, userId: number) => Promise<void>

export interface SessionHooks {
  /** Adds a listener for "every session of an account was ended" (not one family alone). */
  onAccountSessionsRevoked(listener: AccountSessionsRevokedListener): void
  /** Runs the listeners in registration order, one after the other, on the caller's transaction. */
  accountSessionsRevoked(trx: Kysely<Database> | Transaction<Database>, userId: number): Promise<void>
}

export function createSessionHooks(): SessionHooks {
  const listeners: AccountSessionsRevokedListener[] = []
  return {
    onAccountSessionsRevoked: (listener) => void listeners.push(listener),
    accountSessionsRevoked: async (trx, userId) => {
      // one after the other: statements of one transaction share its connection
      for (const listener of listeners) await listener(trx, userId)
    },
  }
}
