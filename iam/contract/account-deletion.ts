/**
 * Self-service account deletion (docs/accounts.md "Deleting the account"): the signed-in request,
 * the mailed confirmation link that disables the account, and the undo link valid until the purge.
 */
import { z } from 'zod'
import { defineRoutes, json, noBody } from './define'
import { linkQuery } from './inputs'
import { BAD_LINK, BANNED_DEVICE, FULL_AUTH, JSON_BODY_FIELDS, LIMITED, REAUTH, errorFail, failure, okData, responses, type Responses } from './responses'

/** What POST /login answered to the right password (contract/auth.ts): 32 random bytes, base64url (features/account-deletion/restore-link.ts). */
const restoreProof = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'Invalid restore proof')

const linkPreview = okData(z.object({ link: z.string(), reason: z.string() }))
const organization = z.object({ id: z.string(), slug: z.string(), name: z.string() })
const LAST_OWNER = {
  409: failure(
    'The account is the last owner of these organizations (`code: "last_owner"`): make another member an owner, or delete them, first',
    errorFail.extend({ code: z.literal('last_owner'), organizations: z.array(organization) }),
    'last_owner',
  ),
} satisfies Responses
const UNDO_EXPIRED = { 410: failure('The undo window has passed: the account is erased or about to be', errorFail, 'undo_expired') } satisfies Responses

export const ACCOUNT_DELETION_ROUTES = defineRoutes({
  deleteAccount: {
    method: 'POST',
    path: '/auth/delete-account',
    summary: 'Ask to delete the account: a single-use confirmation link is mailed (needs a recent sign-in)',
    auth: 'full',
    guards: ['recent-sign-in'],
    limiters: ['emails'],
    request: noBody,
    responses: responses(
      {
        202: {
          description: 'The confirmation link was mailed to the account address; nothing changes until it is used',
          body: okData(z.object({ sentTo: z.string(), expiresAt: z.iso.datetime() })),
        },
      },
      LAST_OWNER,
      { 401: failure('The account is gone: re-login is required', errorFail, 'relogin_required') },
      { 503: failure('The mail could not be sent', errorFail, 'mail_failed') },
      FULL_AUTH,
      REAUTH,
      LIMITED,
    ),
  },
  deleteAccountLink: {
    method: 'GET',
    path: '/auth/delete-account/confirm',
    summary: 'Check an account deletion link before it is used',
    auth: 'none',
    limiters: ['links'],
    request: noBody,
    query: linkQuery,
    responses: responses({ 200: { description: 'The link is live', body: linkPreview } }, BAD_LINK, LIMITED),
  },
  confirmDeleteAccount: {
    method: 'POST',
    path: '/auth/delete-account/confirm',
    summary: 'Confirm the deletion with the mailed link: the account is disabled at once and erased after the undo window',
    auth: 'none',
    limiters: ['codes'],
    request: noBody,
    query: linkQuery,
    responses: responses(
      {
        200: {
          description: 'Disabled: every session, refresh token, API token and app grant ended; `dueAt` is when the purge erases it; the undo link was mailed (`undoMailed`)',
          body: okData(z.object({ message: z.string(), dueAt: z.iso.datetime(), undoMailed: z.boolean() })),
        },
      },
      BAD_LINK,
      BANNED_DEVICE,
      LAST_OWNER,
      LIMITED,
    ),
  },
  restoreLink: {
    method: 'POST',
    path: '/auth/delete-account/restore-link',
    summary: 'Mail a new restore link to an account scheduled for deletion, for the proof its sign-in with the right password answered',
    auth: 'none',
    // per IP before the proof is read, then per account (the proof names it), then the address's cap
    limiters: ['links', 'emails', 'mailbox'],
    request: json(),
    body: z.object({ restoreProof }),
    responses: responses(
      {
        200: {
          description: 'A new undo link was mailed to the account address (`sentTo`, masked); the one mailed before stops working. `dueAt` is when the account is erased',
          body: okData(z.object({ sentTo: z.string(), dueAt: z.iso.datetime() })),
        },
      },
      JSON_BODY_FIELDS,
      {
        400: failure(
          'No canary_id cookie; or the proof is malformed, unknown, expired, already used or from another device (`fields`, or `error`)',
          errorFail,
          'device_cookie_missing',
          'validation_failed',
          'restore_proof_invalid',
        ),
        403: failure('Banned device', errorFail, 'device_banned'),
        409: failure('The account is no longer scheduled for deletion: its password signs in', errorFail, 'deletion_not_pending'),
        410: UNDO_EXPIRED[410]!,
        503: failure('The mail could not be sent', errorFail, 'mail_failed'),
      },
      LIMITED,
    ),
  },
  undoDeleteAccountLink: {
    method: 'GET',
    path: '/auth/undo-delete-account',
    summary: 'Check an undo-account-deletion link',
    auth: 'none',
    limiters: ['links'],
    request: noBody,
    query: linkQuery,
    responses: responses(
      { 200: { description: 'The link is live', body: linkPreview } },
      BAD_LINK,
      UNDO_EXPIRED,
      LIMITED,
    ),
  },
  undoDeleteAccount: {
    method: 'POST',
    path: '/auth/undo-delete-account',
    summary: 'Cancel a confirmed deletion with the mailed undo link, within the undo window',
    auth: 'none',
    limiters: ['codes'],
    request: noBody,
    query: linkQuery,
    responses: responses(
      { 200: { description: 'Restored: the account signs in again (what the deletion ended stays ended)', body: okData(z.object({ message: z.string() })) } },
      BAD_LINK,
      BANNED_DEVICE,
      UNDO_EXPIRED,
      LIMITED,
    ),
  },
})
