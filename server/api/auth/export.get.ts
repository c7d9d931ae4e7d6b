/**
 * GET /api/auth/export (signed in) -> IAM GET /auth/export: the account's own data as a download.
 * A 200 goes to the browser as the file (`Content-Disposition: attachment`, `no-store` from
 * defineBffHandler); every other answer is relayed as the JSON the page reads (403
 * `reauthenticate: true` opens the in-place prompt, 429 the wait, 401 signed out).
 */
import { setResponseHeader } from 'h3'
import { EXPORT_FILE_NAME, exportFileName } from '../../../iam/contract/account-export'
import { bffFail, defineBffHandler, relay, SERVICE_FAILED_MESSAGE } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

/** The file name the IAM gave (`filename="..."`), when it has the expected shape; never a name the page did not expect. */
function fileNameOf(disposition: string | null): string | undefined {
  const name = /^attachment; filename="([^"]+)"$/.exec(disposition ?? '')?.[1]
  return name && EXPORT_FILE_NAME.test(name) ? name : undefined
}

export default defineBffHandler(async (event) => {
  const res = await callAuthedRoute(event, 'accountExport', {})
  if (res.status !== 200) return relay(event, res)
  // a 200 without a JSON document is the IAM failing, not a file to hand over
  if (!res.body || typeof res.body !== 'object') bffFail(502, { ok: false, error: SERVICE_FAILED_MESSAGE, code: 'service_failed' })
  const name = fileNameOf(res.headers.get('content-disposition')) ?? exportFileName(new Date())
  setResponseHeader(event, 'content-type', 'application/json; charset=utf-8')
  setResponseHeader(event, 'content-disposition', `attachment; filename="${name}"`)
  return JSON.stringify(res.body, null, 2)
})
