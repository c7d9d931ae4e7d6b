/** Shapes of the API-token management bodies (IAM spec, API token management). */
import { z } from 'zod'

export const privilegeSchema = z.enum(['demo', 'restricted', 'protected', 'full', 'custom'], { message: 'Choose a privilege.' })

/** The owner check fields every action on an existing token carries. */
export const tokenIdentity = {
  tokenId: z.number().int().positive(),
  publicIdentifier: z.string().min(1).max(256),
  name: z.string().min(1).max(100),
}
