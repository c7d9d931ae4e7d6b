/**
 * The signed-in account of a picture route (PUT/GET /auth/picture, GET /auth/picture/settings,
 * POST /auth/picture/choice): the row full authentication read with the session
 * (features/sessions/auth-state-repo.ts), so the routes need no second read of it.
 */
import type { H3Event } from 'h3'
import type { PictureAccount } from '../features/users/profile-picture'
import { failRelogin, type RequestUser } from './auth'

export function pictureAccount(event: H3Event, user: RequestUser): PictureAccount {
  const account = event.context.account
  // the account was removed between the session read and this route: its session means nothing now
  if (!account || account.id !== user.userId) return failRelogin('USER_NOT_FOUND')
  return { id: account.id, email: account.email, picture_source: account.picture_source }
}
