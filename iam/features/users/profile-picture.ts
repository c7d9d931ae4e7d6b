/**
 * The account's picture (docs/accounts.md "Profile picture"): user_picture_sources says which one
 * the person chose (no row: none), user_pictures holds an upload (migration 0027). Choosing Gravatar or none
 * removes an upload: the service keeps no picture the person does not use.
 *
 * Gravatar is never fetched here: the page's browser loads the address (iam/contract/profile-picture.ts
 * gravatarUrl), and only when the person chose it, since the address carries a hash of their email.
 */
import { createHash } from 'node:crypto'
import type { Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import { gravatarUrl, type PictureSourceName, type PictureType, type PictureView } from '../../contract/profile-picture'
import type { IamContext } from '../../context'
import type { Actor } from '../security-events/repository'
import { recordSecurityEvent } from '../security-events/repository'

/** The account facts a view needs (full authentication read them: features/sessions/auth-state-repo.ts). */
export interface PictureAccount {
  id: number
  email: string
  picture_source: PictureSourceName
}

/** The Gravatar hash of an address: SHA-256 hex of the trimmed, lowercased address (Gravatar's documented rule). */
export const gravatarHash = (email: string): string => createHash('sha256').update(email.trim().toLowerCase()).digest('hex')

/** An ETag of the bytes' digest (RFC 9110 section 8.8.3): a strong validator, equal bytes equal tags. */
export const etagOf = (sha256: string): string => `"${sha256}"`

function viewOf(ctx: IamContext, email: string, source: PictureSourceName, upload: { content_type: string; sha256: string } | undefined): PictureView {
  const maxBytes = ctx.config.profilePicture.maxBytes
  if (source === 'upload' && upload) return { source, gravatarUrl: null, contentType: upload.content_type as PictureType, etag: etagOf(upload.sha256), maxBytes }
  if (source === 'gravatar') return { source, gravatarUrl: gravatarUrl(gravatarHash(email)), contentType: null, etag: null, maxBytes }
  return { source: 'none', gravatarUrl: null, contentType: null, etag: null, maxBytes }
}

/** The picture as the account chose it (the metadata of an upload, never its bytes). */
export async function pictureSettings(ctx: IamContext, account: PictureAccount): Promise<PictureView> {
  const upload =
    account.picture_source === 'upload'
      ? await ctx.db.selectFrom('user_pictures').select(['content_type', 'sha256']).where('user_id', '=', account.id).executeTakeFirst()
      : undefined
  return viewOf(ctx, account.email, account.picture_source, upload)
}

/** The Gravatar address the account uses, or null (GET /secret/accesstoken/metadata: the header's picture without another call). */
export const gravatarOf = (account: PictureAccount): string | null => (account.picture_source === 'gravatar' ? gravatarUrl(gravatarHash(account.email)) : null)

/**
 * Stores `bytes` (already judged a `type` image within the cap) as the account's picture and
 * chooses it, replacing an earlier upload, and records the change in the account's activity in the
 * same transaction (the details name the field, never the content).
 */
export async function storePicture(ctx: IamContext, input: { account: PictureAccount; actor: Actor; bytes: Uint8Array; type: PictureType }): Promise<PictureView> {
  const at = new Date(ctx.now())
  const sha256 = createHash('sha256').update(input.bytes).digest('hex')
  const row = { user_id: input.account.id, content_type: input.type, bytes: input.bytes, sha256, updated_at: at }
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('user_pictures')
      .values(row)
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ content_type: row.content_type, bytes: row.bytes, sha256, updated_at: at }))
      .execute()
    await chooseSource(trx, input.account.id, 'upload')
    await recordSecurityEvent(trx, { type: 'profile_updated', userId: input.account.id, visitorRowId: input.actor.visitorRowId, ipAddress: input.actor.ipAddress, details: { field: 'picture' }, at })
  })
  return viewOf(ctx, input.account.email, 'upload', { content_type: input.type, sha256 })
}

/** Records the account's choice: a row for an upload or Gravatar, none for no picture. */
async function chooseSource(trx: Transaction<Database>, userId: number, source: PictureSourceName): Promise<void> {
  if (source === 'none') {
    await trx.deleteFrom('user_picture_sources').where('user_id', '=', userId).execute()
    return
  }
  await trx
    .insertInto('user_picture_sources')
    .values({ user_id: userId, source })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ source }))
    .execute()
}

/** The uploaded picture in use, or undefined (none uploaded, or another source chosen). */
export async function readPicture(ctx: IamContext, userId: number): Promise<{ contentType: PictureType; bytes: Uint8Array; etag: string } | undefined> {
  const row = await ctx.db
    .selectFrom('user_pictures as p')
    .innerJoin('user_picture_sources as s', 's.user_id', 'p.user_id')
    .select(['p.content_type', 'p.bytes', 'p.sha256'])
    .where('p.user_id', '=', userId)
    .where('s.source', '=', 'upload')
    .executeTakeFirst()
  return row ? { contentType: row.content_type as PictureType, bytes: row.bytes, etag: etagOf(row.sha256) } : undefined
}

/** Chooses Gravatar or no picture; an uploaded picture is deleted either way. */
export async function choosePicture(ctx: IamContext, input: { account: PictureAccount; actor: Actor; source: 'gravatar' | 'none' }): Promise<PictureView> {
  const at = new Date(ctx.now())
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('user_pictures').where('user_id', '=', input.account.id).execute()
    await chooseSource(trx, input.account.id, input.source)
    await recordSecurityEvent(trx, { type: 'profile_updated', userId: input.account.id, visitorRowId: input.actor.visitorRowId, ipAddress: input.actor.ipAddress, details: { field: 'picture' }, at })
  })
  return viewOf(ctx, input.account.email, input.source, undefined)
}
