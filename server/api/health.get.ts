/**
 * GET /api/health: the gateway is up, and can it reach the IAM (signed like every other call, so a
 * wrong shared secret shows here too). 200 `{ gateway: "ok", iam: "ok" }`, else 503 with
 * `iam: "unreachable"`; the reason goes to the gateway's log, never into the body.
 */
import { defineEventHandler, setResponseHeader, setResponseStatus } from 'h3'
import { IamUnavailableError } from '../../iam/client/iam-client'
import { useIamClient } from '../utils/iam'
import { useGatewayLog } from '../utils/log'

async function iamProblem(): Promise<string | undefined> {
  try {
    const res = await useIamClient().request({ method: 'GET', path: '/health' })
    return res.status === 200 ? undefined : `IAM /health answered ${res.status}`
  } catch (error) {
    if (error instanceof IamUnavailableError) return error.message
    throw error
  }
}

export default defineEventHandler(async (event) => {
  setResponseHeader(event, 'cache-control', 'no-store')
  const problem = await iamProblem()
  if (!problem) return { gateway: 'ok', iam: 'ok' }
  useGatewayLog().warn('health: IAM unreachable', { reason: problem })
  setResponseStatus(event, 503)
  return { gateway: 'ok', iam: 'unreachable' }
})
