import { defineEventHandler } from 'h3'
import { ROUTES } from '../../contract/routes'
import { previewMfaLink } from '../../features/account-actions/verify-mfa'
import { answerLinkPreview } from '../../http/link-preview'

/** GET /auth/verify-mfa: 200 `{ ok, date, data: { link: "MFA Code", reason } }`; 400 `{ error }`. */
export default defineEventHandler((event) => answerLinkPreview(event, ROUTES.verifyMfaLink, 'MFA Code', previewMfaLink))
