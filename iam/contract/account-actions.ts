/** MFA, custom MFA, email update, password reset, email verification (docs/accounts.md, docs/second-factors.md). */
import { z } from 'zod'
import { safeString } from './text'
import { defineRoutes, json, noBody } from './define'
import { botProof, code, isCustomReason, linkQuery } from './inputs'
import {
  BAD_LINK,
  BANNED_DEVICE,
  BOT_CHECK,
  FULL_AUTH,
  JSON_BODY_FIELDS,
  LIMITED,
  LINK_CODES,
  REAUTH,
  XSS,
  errorFail,
  failure,
  okData,
  passwordWarnings,
  responses,
  tokensBody,
  type Responses,
} from './responses'

const linkPreview = <T extends z.ZodRawShape>(extra: T) => okData(z.object({ link: z.string(), reason: z.string(), ...extra }))
const message = okData(z.object({ message: z.string() }))

/** Completing an emailed code */
const CODE_CHECK = {
  400: failure('Validation failed (`fields`), or the link purpose or subject does not match', errorFail, 'validation_failed', ...LINK_CODES),
  401: failure('Wrong or expired code, or the session the code belongs to is gone', errorFail, 'code_invalid', 'code_attempts_exhausted', 'relogin_required'),
  500: failure('The session could not be issued or the mail could not be sent', errorFail, 'mail_failed'),
} satisfies Responses
/** A JSON body with the emailed code, for the link in the query */
const CODE_SUBMISSION = responses(JSON_BODY_FIELDS, BAD_LINK, CODE_CHECK, XSS, LIMITED)

export const ACCOUNT_ACTION_ROUTES = defineRoutes({
  verifyMfaLink: {
    method: 'GET',
    path: '/auth/verify-mfa',
    summary: 'Check an MFA magic link before it is used',
    auth: 'none',
    limiters: ['links'],
    request: noBody,
    query: linkQuery,
    responses: responses({ 200: { description: 'The link is live', body: linkPreview({}) } }, BAD_LINK, LIMITED),
  },
  verifyMfa: {
    method: 'POST',
    path: '/auth/verify-mfa',
    summary: 'Complete sign-in MFA with the emailed link or code',
    auth: 'none',
    limiters: ['codes'],
    request: json(),
    query: linkQuery,
    body: z.object({ code }),
    responses: responses(
      { 200: { description: 'Signed in: access token, session cookie set', body: tokensBody } },
      CODE_SUBMISSION,
      BANNED_DEVICE,
    ),
  },
  verifyMfaCode: {
    method: 'POST',
    path: '/auth/verify-mfa/code',
    summary: 'Complete sign-in MFA with the emailed code typed where the challenge met the person (session and device cookies name the challenge)',
    auth: 'none',
    limiters: ['codes'],
    request: json(),
    body: z.object({ code }),
    responses: responses(
      { 200: { description: 'Signed in: access token, session cookie set', body: tokensBody } },
      JSON_BODY_FIELDS,
      {
        400: failure('No code waits for this session, or this device is not the one it was sent for (`error`)', errorFail, ...LINK_CODES),
        401: failure('Wrong or expired code, or the session the code belongs to is gone', errorFail, 'code_invalid', 'code_attempts_exhausted', 'relogin_required'),
        500: failure('The session could not be issued', errorFail, 'internal_error'),
      },
      XSS,
      LIMITED,
      BANNED_DEVICE,
    ),
  },
  waitingMfa: {
    method: 'GET',
    path: '/auth/verify-mfa/waiting',
    summary: 'The emailed-code challenge waiting on this session: where it went (masked) and why',
    auth: 'none',
    limiters: ['links'],
    request: noBody,
    responses: responses(
      {
        200: {
          description: 'A code waits: the masked address, the check that asked (`because`) and when the code expires',
          body: okData(z.object({ sentTo: z.string(), because: z.string(), expiresAt: z.string() })),
        },
        404: failure('No code waits for this session', errorFail, 'no_code_waiting'),
      },
      LIMITED,
    ),
  },
  customMfa: {
    method: 'POST',
    path: '/custom/mfa/:reason',
    summary: 'Start a custom MFA flow for a sensitive action',
    auth: 'full',
    limiters: ['emails', 'links'],
    request: json(),
    params: z.object({ reason: z.string().refine(isCustomReason, 'Expected 3-64 of A-Z, 0-9 and _, not a reserved name') }),
    body: z.strictObject({ note: safeString().trim().max(200, 'The note has at most 200 characters').optional() }),
    responses: responses(
      { 200: { description: 'Link and code mailed', body: okData(z.object({ reason: z.string(), expiresAt: z.string(), sentTo: z.string() })) } },
      FULL_AUTH,
      JSON_BODY_FIELDS,
      XSS,
      // change_email only
      REAUTH,
      {
        400: failure('Invalid reason, or validation failed (`fields`)', errorFail, 'validation_failed'),
        401: failure('Re-login is required', errorFail, 'relogin_required'),
        500: failure('The mail could not be sent', errorFail, 'mail_failed'),
      },
      LIMITED,
    ),
  },
  verifyCustomMfaLink: {
    method: 'GET',
    path: '/auth/verify-custom-mfa',
    summary: 'Check a custom MFA link before it is used',
    auth: 'full',
    limiters: ['links'],
    request: noBody,
    query: linkQuery,
    responses: responses(
      { 200: { description: 'A live link of this session', body: linkPreview({ expiresAt: z.string(), note: z.string().optional() }) } },
      FULL_AUTH,
      BAD_LINK,
      LIMITED,
    ),
  },
  verifyCustomMfa: {
    method: 'POST',
    path: '/auth/verify-custom-mfa',
    summary: 'Complete a custom MFA flow with the emailed link or code',
    auth: 'full',
    limiters: ['codes'],
    request: json(),
    query: linkQuery,
    body: z.object({ code }),
    responses: responses(
      { 200: { description: 'Action confirmed: new access token, session cookie set', body: tokensBody } },
      FULL_AUTH,
      CODE_SUBMISSION,
    ),
  },
  updateEmail: {
    method: 'POST',
    path: '/update/email',
    summary: 'Change the account email (after a change_email MFA flow)',
    auth: 'full',
    guards: ['not-impersonated'],
    limiters: ['codes', 'mailbox'],
    request: json(),
    query: linkQuery,
    body: z.object({
      code,
      newEmail: safeString({ error: 'The new email is required' }).trim().min(3, 'The new email is required').max(254),
    }),
    responses: responses(
      {
        200: {
          description:
            'Change asked: a confirmation link went to the new address (POST /auth/verify-email); the account keeps its address until it is used. New access token for this session',
          body: tokensBody,
        },
      },
      FULL_AUTH,
      CODE_SUBMISSION,
      { 400: failure('Invalid address, the current one, or in use (`fields.newEmail`)', errorFail, 'email_invalid', 'email_unchanged', 'email_taken') },
    ),
  },
  pendingEmailChange: {
    method: 'GET',
    path: '/update/email/pending',
    summary: 'The email change waiting for its confirmation link, if any (masked address, link expiry)',
    auth: 'full',
    limiters: [],
    request: noBody,
    responses: responses(
      {
        200: {
          description: '`pending` is null when no change waits',
          body: okData(z.object({ pending: z.object({ sentTo: z.string(), expiresAt: z.string() }).nullable() })),
        },
      },
      FULL_AUTH,
    ),
  },
  resendEmailChange: {
    method: 'POST',
    path: '/update/email/resend',
    summary: 'Mail the waiting email change its confirmation link again: a new link, the older one stops working',
    auth: 'full',
    guards: ['not-impersonated'],
    limiters: ['resendVerification', 'mailbox'],
    request: noBody,
    responses: responses(
      { 200: { description: 'A new link went to the new address (`sentTo`, masked)', body: okData(z.object({ sentTo: z.string() })) } },
      FULL_AUTH,
      {
        400: failure('No email change is waiting', errorFail, 'email_change_not_pending'),
        500: failure('The mail could not be sent', errorFail, 'mail_failed'),
      },
      LIMITED,
    ),
  },
  cancelEmailChange: {
    method: 'POST',
    path: '/update/email/cancel',
    summary: 'Cancel the email change waiting for its confirmation: its link stops working',
    auth: 'full',
    guards: ['not-impersonated'],
    limiters: [],
    request: noBody,
    responses: responses(
      { 200: { description: 'Cancelled (`cancelled: false` when none waited)', body: okData(z.object({ cancelled: z.boolean() })) } },
      FULL_AUTH,
    ),
  },
  forgotPassword: {
    method: 'POST',
    path: '/auth/forgot-password',
    summary: 'Mail a password reset link',
    auth: 'none',
    limiters: ['forgotPassword', 'mailbox'],
    request: json(),
    body: z.object({ email: safeString({ error: 'Email is required' }).trim().min(3, 'Email is required').max(254), botProof }),
    responses: responses(
      BOT_CHECK,
      {
        200: {
          description: 'One fixed body whether or not the address has an account',
          body: z.object({ ok: z.literal(true), message: z.string() }),
        },
      },
      JSON_BODY_FIELDS,
      { 400: failure('Validation failed (`fields`)', errorFail, 'validation_failed') },
      BANNED_DEVICE,
      XSS,
      LIMITED,
    ),
  },
  resetPasswordLink: {
    method: 'GET',
    path: '/auth/reset-password',
    summary: 'Check a password reset link before it is used',
    auth: 'none',
    limiters: ['links'],
    request: noBody,
    query: linkQuery,
    responses: responses({ 200: { description: 'The link is live', body: linkPreview({}) } }, BAD_LINK, LIMITED),
  },
  resetPassword: {
    method: 'POST',
    path: '/auth/reset-password',
    summary: 'Set a new password with a reset link',
    auth: 'none',
    limiters: ['codes'],
    request: json(),
    query: linkQuery,
    body: z.object({
      password: safeString({ error: 'Password is required' }).min(1, 'Password is required').max(1024),
      confirmedPassword: safeString({ error: 'Confirm the password' }).min(1, 'Confirm the password').max(1024),
      // also end every API token of the account (the reset page offers it, checked)
      revokeApiTokens: z.boolean({ error: 'revokeApiTokens is true or false' }).optional(),
    }),
    responses: responses(
      { 200: { description: 'Password replaced, every session (and with revokeApiTokens every API token) revoked; `warnings` when the breach check was skipped', body: message.extend(passwordWarnings) } },
      JSON_BODY_FIELDS,
      BAD_LINK,
      { 400: failure('Validation failed, passwords differ, or a weak or breached password (`fields`)', errorFail, 'validation_failed', 'passwords_mismatch', 'password_rejected') },
      BANNED_DEVICE,
      XSS,
      LIMITED,
      { 503: failure('The breached-password check is unavailable', errorFail, 'breach_check_unavailable') },
    ),
  },
  // Email verification and undoing an email change: the link is the whole input
  verifyEmailLink: {
    method: 'GET',
    path: '/auth/verify-email',
    summary: 'Check an email verification link',
    auth: 'none',
    limiters: ['links'],
    request: noBody,
    query: linkQuery,
    responses: responses({ 200: { description: 'The link is live', body: linkPreview({}) } }, BAD_LINK, LIMITED),
  },
  verifyEmail: {
    method: 'POST',
    path: '/auth/verify-email',
    summary: 'Verify the account email with the emailed link',
    auth: 'none',
    limiters: ['codes'],
    request: noBody,
    query: linkQuery,
    responses: responses(
      { 200: { description: 'Address verified', body: message } },
      BAD_LINK,
      { 400: failure("The account's address is no longer the one the link was sent to (or an email change started from)", errorFail, 'address_changed') },
      { 409: failure('Confirming an email change: another account took the new address since it was asked for', errorFail, 'email_taken') },
      {
        403: failure(
          'Banned device; or `passwordRequired: true` when the link is opened on another device than the one that asked for it (POST /auth/verify-email/password)',
          errorFail.extend({ passwordRequired: z.literal(true).optional() }),
          'device_banned',
          'password_required',
        ),
      },
      LIMITED,
    ),
  },
  verifyEmailWithPassword: {
    method: 'POST',
    path: '/auth/verify-email/password',
    summary: 'Verify the account email with the emailed link on another device: with the account password, or by choosing a new one',
    auth: 'none',
    limiters: ['codes'],
    request: json(),
    query: linkQuery,
    // `{ password }` or `{ newPassword, confirmedPassword }`; anything else is a 400 of the route
    body: z.strictObject({
      password: safeString({ error: 'Enter your password' }).min(1, 'Enter your password').max(1024).optional(),
      newPassword: safeString({ error: 'Choose a password' }).min(1, 'Choose a password').max(1024).optional(),
      confirmedPassword: safeString({ error: 'Confirm the password' }).min(1, 'Confirm the password').max(1024).optional(),
    }),
    responses: responses(
      {
        200: {
          description: 'Address verified; with a new password, every session was ended (`signedOut: true`)',
          body: okData(z.object({ message: z.string(), signedOut: z.boolean() })).extend(passwordWarnings),
        },
      },
      JSON_BODY_FIELDS,
      BAD_LINK,
      {
        400: failure(
          'Validation failed, passwords differ, a rejected password (`fields`), or the address changed since',
          errorFail,
          'validation_failed',
          'passwords_mismatch',
          'password_rejected',
          'address_changed',
        ),
      },
      { 401: failure('Wrong password (counted like a failed sign-in)', errorFail, 'wrong_password') },
      { 403: failure('The link was opened on another device: a password is needed (an email change: the account password only)', errorFail, 'password_required') },
      { 409: failure('Confirming an email change: another account took the new address since it was asked for', errorFail, 'email_taken') },
      BANNED_DEVICE,
      LIMITED,
      { 503: failure('The breached-password check is unavailable', errorFail, 'breach_check_unavailable') },
    ),
  },
  resendVerification: {
    method: 'POST',
    path: '/auth/resend-verification',
    summary: 'Mail a new email verification link',
    auth: 'full',
    limiters: ['resendVerification', 'mailbox'],
    request: noBody,
    responses: responses(
      { 200: { description: 'A new verification link was mailed', body: message } },
      FULL_AUTH,
      {
        400: failure('The address is already verified', errorFail, 'email_already_verified'),
        401: failure('The account is gone', errorFail, 'relogin_required'),
        503: failure('The mail could not be sent', errorFail, 'mail_failed'),
      },
      LIMITED,
    ),
  },
  undoEmailChangeLink: {
    method: 'GET',
    path: '/auth/undo-email-change',
    summary: 'Check an undo-email-change link',
    auth: 'none',
    limiters: ['links'],
    request: noBody,
    query: linkQuery,
    responses: responses({ 200: { description: 'The link is live', body: linkPreview({}) } }, BAD_LINK, LIMITED),
  },
  undoEmailChange: {
    method: 'POST',
    path: '/auth/undo-email-change',
    summary: 'Restore the previous email with the link mailed to it',
    auth: 'none',
    limiters: ['codes'],
    request: noBody,
    query: linkQuery,
    responses: responses(
      { 200: { description: 'The previous address is back, verified; every session revoked', body: message } },
      BAD_LINK,
      BANNED_DEVICE,
      { 409: failure('The previous address now belongs to another account', errorFail, 'email_taken') },
      LIMITED,
    ),
  },
})
