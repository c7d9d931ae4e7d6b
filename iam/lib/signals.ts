/**
 * Operational signals: what features and the request pipeline report for the metrics
 * (docs/operations.md), published on one node:diagnostics_channel. Features stay free of prom-client and of
 * any registry: they publish, lib/metrics.ts subscribes. With nobody subscribed (the admin CLI, unit
 * tests) a signal costs one boolean check.
 *
 * Labels are closed sets (outcome codes, limiter names, failure reasons): never a user's input,
 * an id or an address, so no series can be created per request.
 */
import { channel } from 'node:diagnostics_channel'

export type IamSignal =
  /** POST /login answered: ok, second_factor, invalid_credentials, banned, throttled ... */
  | { kind: 'login'; outcome: string }
  /** a security event was written (login_failed, mfa_sent, mfa_verified, mfa_failed, device_banned ...) */
  | { kind: 'securityEvent'; type: string }
  /** a refresh-token rotation: ok, reused (family revoked), invalid */
  | { kind: 'rotation'; outcome: string }
  /** a limiter refused a consume */
  | { kind: 'limiterRejected'; limiter: string }
  /** an API token verification: ok or its failure reason (features/api-tokens/results.ts) */
  | { kind: 'tokenVerify'; outcome: string }
  /** a connection-level error of the shared store, the database pool or a read replica */
  | { kind: 'dependencyError'; dependency: 'storage' | 'database' | 'replica' }
  /** a read that may lag (db/replicas.ts) ran on a replica, or on the primary instead */
  | { kind: 'laggingRead'; servedBy: 'replica' | 'primary' }
  /** one statement sent to the database (a round trip): read, write or transaction control */
  | { kind: 'dbStatement'; statement: StatementKind }
  /** one webhook delivery attempt ended: delivered, retry (failed, tried again), dead (schedule spent), gone (410) */
  | { kind: 'webhookDelivery'; outcome: 'delivered' | 'retry' | 'dead' | 'gone' }

export type StatementKind = 'read' | 'write' | 'transaction'

/** What a statement does, for the round-trip counters (db/database.ts, fast/direct.ts): writes are INSERT/UPDATE/DELETE, also inside a CTE. */
export function statementKind(sqlText: string): StatementKind {
  if (/^\s*(begin|commit|rollback|start transaction|savepoint|release)\b/i.test(sqlText)) return 'transaction'
  return /\b(insert\s+into|update\s+"?[\w.]+"?\s+set|delete\s+from)\b/i.test(sqlText) ? 'write' : 'read'
}

const iamChannel = channel('iam.signals')

export function emitSignal(signal: IamSignal): void {
  if (iamChannel.hasSubscribers) iamChannel.publish(signal)
}

/** Calls `listener` for every signal of this process; returns the unsubscribe function. */
export function onSignal(listener: (signal: IamSignal) => void): () => void {
  const handler = (message: unknown) => listener(message as IamSignal)
  iamChannel.subscribe(handler)
  return () => iamChannel.unsubscribe(handler)
}
