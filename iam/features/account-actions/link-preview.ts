/**
 * The GET preview of every link-driven action (reset, verification, undo, verify-mfa): the link is
 * checked and counted as previewed, never consumed; the answer is its purpose or why it is refused.
 */
import type { IamContext } from '../../context'
import type { LinkParams } from '../mfa/link-token'
import { previewLink } from '../mfa/links'
import { linkFailure, type ActionFailure } from './outcomes'

export async function previewLinkPurpose(
  ctx: IamContext,
  params: LinkParams,
  acceptPurpose: (purpose: string) => boolean,
): Promise<{ ok: true; reason: string } | ActionFailure> {
  const check = await previewLink(ctx, params, acceptPurpose)
  return check.ok ? { ok: true, reason: check.link.purpose } : linkFailure(check.code)
}
