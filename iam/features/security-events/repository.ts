/**
 * Security events: one row per completed sensitive action (MFA passed, custom action confirmed,
 * email changed, password reset), with who, which device, from where and when. Never secrets.
 */
import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/schema'

export type SecurityEventType =
  | 'mfa_verified'
  | 'mfa_sent'
  | 'custom_mfa_started'
  | 'custom_mfa_verified'
  | 'email_changed'
  | 'password_reset_requested'
  | 'password_reset'
  | 'email_verified'
  | 'email_change_undone'
  | 'api_tokens_revoked_all'
  | 'second_factor_added'
  | 'second_factor_removed'
  | 'second_factor_passed'
  | 'second_factor_failed'
  | 'recovery_code_used'
  | 'passkey_sign_in'
  | 'passkey_counter_regressed'

export interface SecurityEventInput {
  type: SecurityEventType
  userId: number | null
  /** visitors.id of the device, when known */
  visitorRowId: number | null
  ipAddress: string | null
  details?: Record<string, unknown>
  at: Date
}

export async function recordSecurityEvent(db: Kysely<Database> | Transaction<Database>, event: SecurityEventInput): Promise<void> {
  await db
    .insertInto('security_events')
    .values({
      type: event.type,
      user_id: event.userId,
      visitor_id: event.visitorRowId,
      ip_address: event.ipAddress,
      details: JSON.stringify(event.details ?? {}),
      created_at: event.at,
    })
    .execute()
}

export async function listSecurityEvents(db: Kysely<Database>, userId: number, limit = 50) {
  return db
    .selectFrom('security_events')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
}
