/**
 * Whether an account is disabled by a confirmed deletion (users.deletion_due_at, migration 0011).
 * Every sign-in path asks this of the row it already read: password login reads the account as an
 * unknown one (users-repo.ts), a passkey or second-factor step as a credential it does not know,
 * the OpenID Provider finds no account, and a password reset mails nothing.
 */
export function isDeletionPending(user: { deletion_due_at: Date | null }): boolean {
  return user.deletion_due_at !== null
}
