import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { previewResetLink } from '../../features/account-actions/password-reset'
import { answerLinkPreview } from '../../http/link-preview'

/** GET /auth/reset-password: 200 `{ ok, date, data: { link: "Password Reset", reason } }`; 400 `{ error }`. */
export default defineEventHandler((event) => answerLinkPreview(event, ROUTES.resetPasswordLink, 'Password Reset', previewResetLink))
