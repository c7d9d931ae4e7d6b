/**
 * HTTP helpers for the passkey tests: registration as a signed-in session and passwordless sign-in
 * from a device, with answers made by the software authenticator (tests/helpers/webauthn-authenticator.ts).
 */
import { call, type Client, type Session } from '../helpers/accounts'
import type { IamEndpoint, Json } from '../helpers/iam-server'
import type { SoftAuthenticator, SoftPasskey } from '../helpers/webauthn-authenticator'
import { authed } from './second-factor-http'

export interface CreationOptions {
  challenge: string
  rp: { id: string; name: string }
  user: { id: string; name: string }
  excludeCredentials: { id: string }[]
  authenticatorSelection: Record<string, unknown>
}

export interface RequestOptions {
  challenge: string
  rpId: string
  allowCredentials: unknown[]
  userVerification: string
}

async function optionsOf<T>(res: Response): Promise<T> {
  const body = (await res.json()) as Json
  if (res.status !== 200) throw new Error(`options answered ${res.status}: ${JSON.stringify(body)}`)
  return (body.data as { options: T }).options
}

export const registerOptions = async (iam: IamEndpoint, s: Session) => optionsOf<CreationOptions>(await authed(iam, s, 'POST', '/auth/passkeys/register/options'))

export const registerVerify = (iam: IamEndpoint, s: Session, credential: unknown, name?: string) =>
  authed(iam, s, 'POST', '/auth/passkeys/register/verify', { credential, ...(name === undefined ? {} : { name }) })

/** Options, the authenticator's answer, verify: the new passkey (throws unless 200). */
export async function registerPasskey(iam: IamEndpoint, s: Session, authenticator: SoftAuthenticator, name?: string): Promise<{ passkey: SoftPasskey; id: number }> {
  const { passkey, credential } = authenticator.register(await registerOptions(iam, s))
  const res = await registerVerify(iam, s, credential, name)
  const body = (await res.json()) as Json
  if (res.status !== 200) throw new Error(`register verify answered ${res.status}: ${JSON.stringify(body)}`)
  return { passkey, id: (body.data as { passkey: { id: number } }).passkey.id }
}

export const loginOptionsResponse = (iam: IamEndpoint, client: Client) => call(iam, 'POST', '/auth/passkeys/login/options', { client })
export const loginOptions = async (iam: IamEndpoint, client: Client) => optionsOf<RequestOptions>(await loginOptionsResponse(iam, client))

export const loginVerify = (iam: IamEndpoint, client: Client, credential: unknown, extra: Json = {}) =>
  call(iam, 'POST', '/auth/passkeys/login/verify', { client, body: { credential, ...extra } })
