/**
 * Link checks shared by the link-driven actions: the GET preview of each (the link is checked and
 * counted as previewed, never consumed) and the check of a link that carries an address.
 */
import type { IamContext } from '../../context'
import type { LinkParams } from './link-token'
import { checkLink, previewLink } from './links'
import type { LinkWithCode } from './repository'
import { linkFailure, type ActionFailure } from './action-failures'

export async function previewLinkPurpose(
  ctx: IamContext,
  params: LinkParams,
  acceptPurpose: (purpose: string) => boolean,
): Promise<{ ok: true; reason: string } | ActionFailure> {
  const check = await previewLink(ctx, params, acceptPurpose)
  return check.ok ? { ok: true, reason: check.link.purpose } : linkFailure(check.code)
}

/** Email verification and undo links carry an address in their data; null when this one does not. */
export async function checkAddressLink(
  ctx: IamContext,
  params: LinkParams,
  acceptPurpose: (purpose: string) => boolean,
): Promise<{ ok: true; link: LinkWithCode; email: string | null } | ActionFailure> {
  const check = await checkLink(ctx, params, acceptPurpose)
  if (!check.ok) return linkFailure(check.code)
  const email = check.link.data['email']
  return { ok: true, link: check.link, email: typeof email === 'string' ? email : null }
}
