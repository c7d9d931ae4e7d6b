/**
 * Mail templates: pure functions from values to `{ subject, text, html }`. Every interpolated value
 * is HTML-escaped in the HTML part (names, notes and reasons come from users); the text part reads
 * on its own in a plain-text client. Codes and tokens never go in a subject: subjects show up in
 * notifications and server logs.
 */
import { anomalyReason } from '../../contract/anomaly-reasons'
import { escapeHtml } from '../../../shared/html'

export interface MailContent {
  subject: string
  text: string
  html: string
}

type Block = { kind: 'p'; text: string } | { kind: 'link'; label: string; url: string } | { kind: 'code'; code: string }

/** Renders blocks to both parts, so text and HTML say the same thing. */
function render(siteName: string, subject: string, blocks: Block[]): MailContent {
  const text = [
    ...blocks.map((b) =>
      b.kind === 'p' ? b.text : b.kind === 'link' ? `${b.label}:\n${b.url}` : `Your code: ${b.code}`,
    ),
    `-- \n${siteName}`,
  ].join('\n\n')
  const body = blocks
    .map((b) =>
      b.kind === 'p'
        ? `<p>${escapeHtml(b.text)}</p>`
        : b.kind === 'link'
          ? `<p><a href="${escapeHtml(b.url)}">${escapeHtml(b.label)}</a></p><p style="font-size:12px;color:#555">${escapeHtml(b.url)}</p>`
          : `<p>Your code:</p><p style="font-size:24px;font-family:monospace;letter-spacing:4px"><strong>${escapeHtml(b.code)}</strong></p>`,
    )
    .join('\n')
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family:sans-serif;line-height:1.5">
${body}
<p style="color:#555">${escapeHtml(siteName)}</p>
</body></html>`
  return { subject, text, html }
}

const minutes = (ms: number) => `${Math.max(1, Math.round(ms / 60_000))} minutes`
/** Whole days or hours when the link lives that long, else minutes. */
const duration = (ms: number) =>
  ms >= 48 * 3_600_000 ? `${Math.round(ms / 86_400_000)} days` : ms >= 2 * 3_600_000 ? `${Math.round(ms / 3_600_000)} hours` : minutes(ms)

export interface CodeMailInput {
  siteName: string
  link: string
  code: string
  /** how long the code stays valid */
  codeTtlMs: number
}

/** Adaptive MFA: a sign-in from a new device or place must be confirmed. */
export function adaptiveMfaMail(input: CodeMailInput & { anomaly: string; ipAddress: string }): MailContent {
  return render(input.siteName, `${input.siteName}: confirm it's you`, [
    { kind: 'p', text: `We asked a sign-in to your ${input.siteName} account (from ${input.ipAddress}) to confirm it is you, because ${anomalyReason(input.anomaly)}.` },
    { kind: 'p', text: `To continue, enter the code on the page that asked for it, or open the link below and enter it there. The code expires in ${minutes(input.codeTtlMs)}.` },
    { kind: 'link', label: 'Confirm it is you', url: input.link },
    { kind: 'code', code: input.code },
    { kind: 'p', text: 'If this was not you, do not enter the code and change your password.' },
  ])
}

/** A custom MFA flow protecting a sensitive action (payment, deletion, email change ...). */
export function customActionMail(input: CodeMailInput & { reason: string; note?: string }): MailContent {
  const blocks: Block[] = [
    { kind: 'p', text: `Someone signed in to your ${input.siteName} account asked to confirm the action ${input.reason}.` },
  ]
  if (input.note) blocks.push({ kind: 'p', text: `Note: ${input.note}` })
  blocks.push(
    { kind: 'p', text: `Open the link below and enter the code to confirm. The code expires in ${minutes(input.codeTtlMs)}.` },
    { kind: 'link', label: 'Confirm the action', url: input.link },
    { kind: 'code', code: input.code },
    { kind: 'p', text: 'If you did not ask for this, ignore this mail and change your password.' },
  )
  return render(input.siteName, `${input.siteName}: confirm a sensitive action`, blocks)
}

/**
 * Sent to the restored address after an email change was undone: every session ended, and what
 * was set up since the change (by whoever moved the address) was removed.
 */
export function emailChangeUndoneNotice(input: {
  siteName: string
  when: string
  ipAddress: string
  removed: { totp: boolean; passkeys: number; apiTokens: number; providerLinks: number }
  passwordCleared: boolean
  forgotUrl: string
}): MailContent {
  const { removed } = input
  const items = [
    removed.totp ? 'two-step sign-in with an authenticator app (and its recovery codes)' : null,
    removed.passkeys ? `${removed.passkeys} passkey${removed.passkeys === 1 ? '' : 's'}` : null,
    removed.apiTokens ? `${removed.apiTokens} API token${removed.apiTokens === 1 ? '' : 's'}` : null,
    removed.providerLinks ? `${removed.providerLinks} linked sign-in provider${removed.providerLinks === 1 ? '' : 's'}` : null,
    input.passwordCleared ? 'the password set since the change' : null,
  ].filter((item): item is string => item !== null)
  const blocks: Block[] = [
    { kind: 'p', text: `The email address of your ${input.siteName} account was put back to this address on ${input.when} from ${input.ipAddress}, and every session was signed out.` },
    {
      kind: 'p',
      text: items.length
        ? `Added since the change, and now removed: ${items.join('; ')}.`
        : 'Nothing was added to your account since the change.',
    },
  ]
  if (input.passwordCleared) {
    blocks.push({ kind: 'p', text: 'Your account has no password now: set a new one with "Forgot password".' }, { kind: 'link', label: 'Set a new password', url: input.forgotUrl })
  } else {
    blocks.push({ kind: 'p', text: 'If you did not change the address yourself, change your password now.' })
  }
  return render(input.siteName, `${input.siteName}: your email change was undone`, blocks)
}

/**
 * The code that re-authenticates a session of an account with neither a password nor a second
 * factor (POST /auth/reauthenticate): typed where it was asked for, so the mail carries no link.
 */
export function reauthenticateCodeMail(input: { siteName: string; code: string; codeTtlMs: number }): MailContent {
  return render(input.siteName, `${input.siteName}: confirm it is you`, [
    { kind: 'p', text: `You were asked to confirm it is you before a change to how your ${input.siteName} account signs in. Enter this code where it was asked for; it expires in ${minutes(input.codeTtlMs)}.` },
    { kind: 'code', code: input.code },
    { kind: 'p', text: 'If you did not ask for this, someone may be using one of your sessions: sign out everywhere from your account page.' },
  ])
}

/** A live API token as a notice names it: never the raw token, only what the owner recognises. */
export interface TokenSummary {
  name: string
  publicIdentifier: string
}

/**
 * "You have N active API tokens: ...": tokens survive a password reset or an email change, so
 * whoever recovers an account must learn they exist.
 */
function tokenBlocks(tokens: readonly TokenSummary[] | undefined, revoked: number | undefined): Block[] {
  const blocks: Block[] = []
  if (revoked) blocks.push({ kind: 'p', text: `${revoked} API token${revoked === 1 ? ' was' : 's were'} revoked as you asked.` })
  if (!tokens?.length) return blocks
  const list = tokens.map((t) => `${t.name} (${t.publicIdentifier})`).join(', ')
  blocks.push({
    kind: 'p',
    text: `You have ${tokens.length} active API token${tokens.length === 1 ? '' : 's'}: ${list}. They keep working; if you do not recognise them, revoke them on your account page.`,
  })
  return blocks
}

/** What every change notice states: when and from where the change came, and the API tokens that outlive it. */
interface ChangeNotice {
  siteName: string
  when: string
  ipAddress: string
  tokens?: readonly TokenSummary[]
}

/** Mailed to a new or changed address: proves the owner reads it. The account works meanwhile. */
export function verifyEmailMail(input: { siteName: string; link: string; linkTtlMs: number }): MailContent {
  return render(input.siteName, `${input.siteName}: confirm your email address`, [
    { kind: 'p', text: `Please confirm that this address belongs to your ${input.siteName} account.` },
    { kind: 'p', text: `Open the link below. It works once and expires in ${duration(input.linkTtlMs)}.` },
    { kind: 'link', label: 'Confirm my email address', url: input.link },
    { kind: 'p', text: 'If you did not sign up or change your address, ignore this mail.' },
  ])
}

/**
 * Sent to the OLD address after an email change, so a hijacked account is noticed; the undo link
 * puts this address back and signs every session out.
 */
export function emailChangedNotice(input: ChangeNotice & { newEmailMasked: string; undoLink?: string; undoTtlMs?: number }): MailContent {
  const blocks: Block[] = [
    { kind: 'p', text: `The email address of your ${input.siteName} account was changed to ${input.newEmailMasked} on ${input.when} from ${input.ipAddress}.` },
  ]
  if (input.undoLink) {
    blocks.push(
      { kind: 'p', text: `If you did not do this, open the link below within ${duration(input.undoTtlMs ?? 0)}: it restores this address and signs every session out.` },
      { kind: 'link', label: 'Undo the change', url: input.undoLink },
    )
  }
  blocks.push(...tokenBlocks(input.tokens, undefined))
  blocks.push({ kind: 'p', text: 'If you did not do this, contact support at once: someone else may control your account.' })
  return render(input.siteName, `${input.siteName}: your email address was changed`, blocks)
}

/**
 * An invitation to join an organization. The link works once, for the invited address only: the
 * person signs in (or signs up) with it and accepts.
 */
export function orgInvitationMail(input: { siteName: string; orgName: string; inviterName: string; link: string; linkTtlMs: number }): MailContent {
  return render(input.siteName, `${input.siteName}: you are invited to join ${input.orgName}`, [
    { kind: 'p', text: `${input.inviterName} invited you to join the organization ${input.orgName} on ${input.siteName}.` },
    { kind: 'p', text: `Open the link below and sign in with this address to accept. It works once and expires in ${duration(input.linkTtlMs)}.` },
    { kind: 'link', label: 'Accept the invitation', url: input.link },
    { kind: 'p', text: 'If you do not know this organization, ignore this mail.' },
  ])
}

export function passwordResetMail(input: { siteName: string; link: string; linkTtlMs: number }): MailContent {
  return render(input.siteName, `${input.siteName}: reset your password`, [
    { kind: 'p', text: `Someone asked to reset the password of your ${input.siteName} account.` },
    { kind: 'p', text: `Open the link below to choose a new password. It works once and expires in ${minutes(input.linkTtlMs)}.` },
    { kind: 'link', label: 'Choose a new password', url: input.link },
    { kind: 'p', text: 'If you did not ask for this, ignore this mail: your password stays as it is.' },
  ])
}

export function passwordChangedNotice(
  input: ChangeNotice & {
    revokedTokens?: number
    /** a change made while signed in keeps that one session (a reset signs every session out) */
    keptCurrentSession?: boolean
  },
): MailContent {
  const signedOut = input.keptCurrentSession ? 'Every other session was signed out.' : 'Every session was signed out.'
  return render(input.siteName, `${input.siteName}: your password was changed`, [
    { kind: 'p', text: `The password of your ${input.siteName} account was changed on ${input.when} from ${input.ipAddress}. ${signedOut}` },
    ...tokenBlocks(input.tokens, input.revokedTokens),
    { kind: 'p', text: 'If you did not do this, reset your password now and contact support.' },
  ])
}

/** An account without a password (provider sign-in only) asked for a reset. */
export function useProviderMail(input: { siteName: string; providers: string[]; loginUrl: string }): MailContent {
  const names = input.providers.length ? input.providers.join(', ') : 'your sign-in provider'
  return render(input.siteName, `${input.siteName}: how to sign in`, [
    { kind: 'p', text: `Someone asked to reset the password of your ${input.siteName} account. Your account has no password: you sign in with ${names}.` },
    { kind: 'link', label: 'Sign in', url: input.loginUrl },
    { kind: 'p', text: 'If you did not ask for this, ignore this mail.' },
  ])
}

const SECOND_FACTOR_CHANGES = {
  added: ['two-step sign-in was turned on', 'Two-step sign-in was turned on for your account'],
  removed: ['two-step sign-in was turned off', 'Two-step sign-in was turned off for your account'],
  recovery_code_used: ['a recovery code was used', 'A recovery code of your account was used'],
  recovery_codes_regenerated: ['new recovery codes were made', 'New recovery codes were made for your account, and the old ones stopped working,'],
  passkey_added: ['a passkey was added', 'A passkey was added to your account'],
  passkey_removed: ['a passkey was removed', 'A passkey was removed from your account'],
  password_set: ['a password was set', 'A password was set for your account'],
  provider_unlinked: ['a linked account was removed', 'A sign-in provider account was unlinked from your account'],
  codes_locked: ['code entry locked after wrong codes', 'Too many wrong two-step codes were entered for your account, so code entry is locked for a while; it was locked'],
} as const

/** Two-step sign-in was turned on or off, a recovery code was used or new ones were made (ASVS V6.3.7: notify on changes to authentication). */
export function secondFactorNotice(input: {
  siteName: string
  change: keyof typeof SECOND_FACTOR_CHANGES
  when: string
  ipAddress: string
  recoveryCodesLeft?: number
}): MailContent {
  const [headline, sentence] = SECOND_FACTOR_CHANGES[input.change]
  const left =
    input.change === 'recovery_code_used' && input.recoveryCodesLeft !== undefined
      ? [{ kind: 'p' as const, text: `${input.recoveryCodesLeft} recovery code${input.recoveryCodesLeft === 1 ? '' : 's'} left. When few are left, make new recovery codes in your account.` }]
      : []
  return render(input.siteName, `${input.siteName}: ${headline}`, [
    { kind: 'p', text: `${sentence} on ${input.when} from ${input.ipAddress}.` },
    ...left,
    {
      kind: 'p',
      text:
        input.change === 'codes_locked'
          ? 'Whoever entered them had your password or one of your signed-in sessions. If it was not you, change your password now and sign out everywhere.'
          : 'If you did not do this, change your password now and contact support.',
    },
  ])
}

/**
 * The confirmation of a deletion the signed-in owner asked for: nothing happens until the link is
 * used, so a session left open somewhere cannot delete the account without the mailbox.
 */
export function deleteAccountMail(input: { siteName: string; link: string; linkTtlMs: number; undoWindowMs: number }): MailContent {
  return render(input.siteName, `${input.siteName}: confirm the deletion of your account`, [
    { kind: 'p', text: `You asked to delete your ${input.siteName} account. Nothing has changed yet.` },
    {
      kind: 'p',
      text: `Open the link below to confirm. It works once and expires in ${minutes(input.linkTtlMs)}. Once confirmed, the account is disabled at once and every session is signed out; it is erased ${duration(input.undoWindowMs)} later, and until then a link we mail you restores it.`,
    },
    { kind: 'link', label: 'Confirm the deletion', url: input.link },
    { kind: 'p', text: 'If you did not ask for this, ignore this mail and change your password: someone may be signed in to your account.' },
  ])
}

/** Sent once the deletion is confirmed: when the account will be erased, and the link that restores it until then. */
export function accountDisabledNotice(input: { siteName: string; eraseAt: string; undoLink: string; undoTtlMs: number }): MailContent {
  return render(input.siteName, `${input.siteName}: your account is disabled and will be erased`, [
    { kind: 'p', text: `Your ${input.siteName} account is disabled: every session, API token and app access was ended. It will be erased on ${input.eraseAt}.` },
    { kind: 'p', text: `Changed your mind? Open the link below within ${duration(input.undoTtlMs)}: it restores the account, and you sign in again.` },
    { kind: 'link', label: 'Restore my account', url: input.undoLink },
  ])
}

/**
 * The restore link of an account scheduled for deletion, mailed again: asked for from the sign-in
 * page after the right password (`sign_in`), or sent instead of a reset link (`forgot_password`),
 * which a disabled account cannot use. The newest link is the only live one (restore-link.ts).
 */
export function restoreLinkMail(input: { siteName: string; asked: 'sign_in' | 'forgot_password'; eraseAt: string; undoLink: string; undoTtlMs: number }): MailContent {
  const why =
    input.asked === 'sign_in'
      ? `Someone signed in with the password of your ${input.siteName} account and asked for the link that restores it.`
      : `Someone asked to reset the password of your ${input.siteName} account.`
  return render(input.siteName, `${input.siteName}: restore your account before it is erased`, [
    { kind: 'p', text: `${why} Your account is scheduled for deletion: it will be erased on ${input.eraseAt}.` },
    { kind: 'p', text: `To keep it, open the link below within ${duration(input.undoTtlMs)}; then sign in again${input.asked === 'forgot_password' ? ', and ask for a password reset if you still need one' : ''}. Any restore link we mailed before no longer works.` },
    { kind: 'link', label: 'Restore my account', url: input.undoLink },
    { kind: 'p', text: 'If you want the account erased, ignore this mail.' },
  ])
}

/** Sent when the undo link restored the account. */
export function accountRestoredNotice(input: { siteName: string; when: string; ipAddress: string; loginUrl: string }): MailContent {
  return render(input.siteName, `${input.siteName}: your account was restored`, [
    { kind: 'p', text: `The deletion of your ${input.siteName} account was cancelled on ${input.when} from ${input.ipAddress}. Your account will not be erased.` },
    { kind: 'p', text: 'Sessions and API tokens ended by the deletion stay ended: sign in again, and create new API tokens if you need them.' },
    { kind: 'link', label: 'Sign in', url: input.loginUrl },
  ])
}
