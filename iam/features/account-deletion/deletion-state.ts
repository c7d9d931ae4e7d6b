/**
 * Whether an account is disabled by a confirmed deletion (users.deletion_due_at, migration 0011).
 * Every sign-in path asks this of the row it already read: a passkey or second-factor step reads
 * the account as a credential it does not know, and the OpenID Provider finds no account. Password
 * login and "Forgot password" tell the owner instead (docs/accounts.md "Deleting the account"):
 * the right password answers that the account is scheduled for deletion (login-service.ts), and a
 * reset request mails the restore link (restore-link.ts); until then the state is told to nobody
 * who has not proved the password or the mailbox.
 */
export function isDeletionPending(user: { deletion_due_at: Date | null }): boolean {
  return user.deletion_due_at !== null
}

/**
 * Past its due moment the account is the purge's, whether or not the purge has run: nothing
 * restores it any more (undo-deletion.ts answers `undo_expired`), so every path reads it as absent.
 */
export function isDeletionDue(user: { deletion_due_at: Date | null }, nowMs: number): boolean {
  return user.deletion_due_at !== null && user.deletion_due_at.getTime() <= nowMs
}
