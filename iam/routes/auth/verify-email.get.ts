import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { previewVerificationLink } from '../../features/account-actions/verify-email'
import { answerLinkPreview } from '../../http/link-preview'

/** GET /auth/verify-email: 200 `{ ok, date, data: { link: "Email Verification", reason } }`; 400 `{ error }`. */
export default defineEventHandler((event) => answerLinkPreview(event, ROUTES.verifyEmailLink, 'Email Verification', previewVerificationLink))
