/**
 * The shared half of the BFF's password sign-in and signup: the form or JSON body read against the
 * IAM route's schema (plus `returnTo`), the device cookie made sure of, the IAM called and its
 * answer relayed (cookies, access token). What a no-JS form post is redirected to differs per route.
 */
import type { H3Event } from 'h3'
import type { IamResponse } from '../../../iam/client/iam-client'
import { ensureDeviceCookie } from './canary'
import { callIamRoute } from './iam-call'
import { readIamBody, returnToField } from './input'
import { relay } from './respond'

export async function relaySignIn(
  event: H3Event,
  route: 'login' | 'signup',
): Promise<{ res: IamResponse<unknown>; body: Record<string, unknown>; returnTo: string | undefined }> {
  const { body: input, extra } = await readIamBody(event, route, { extra: returnToField, formPath: `/${route}` })
  await ensureDeviceCookie(event)
  const res = await callIamRoute(event, route, { body: input, cookies: ['canary_id'] })
  return { res, body: relay(event, res), returnTo: extra.returnTo }
}
