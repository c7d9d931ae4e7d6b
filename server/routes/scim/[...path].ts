/** /scim/** -> the IAM's SCIM service (server/utils/scim-forward.ts, docs/scim.md). */
import { defineEventHandler } from 'h3'
import { forwardToScim, sendScimAnswer } from '../../utils/scim-forward'

export default defineEventHandler(async (event) => {
  const answer = await forwardToScim(event)
  if (!answer) return
  return sendScimAnswer(event, answer)
})
