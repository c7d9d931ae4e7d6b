/**
 * The rule of an imported account's external id (users.external_id, migration 0013; import-users.ts
 * and docs/import.md say what it is for).
 */
import { isSafeText } from '../../contract/text'

/** An external id's length in characters (code points), as the column's check counts them. */
const EXTERNAL_ID_MAX = 255

/**
 * A line's `externalId`: absent or null is none; otherwise a string of safe text (no control
 * character, well-formed Unicode: contract/text.ts), trimmed, 1 to EXTERNAL_ID_MAX characters,
 * kept as given otherwise (no case folding or normalisation: it is compared exactly). A JSON number
 * is refused: past 2^53 it loses digits in JSON.parse (64-bit ids do), and `42` and `42.0` are one
 * number that would become two ids; numeric ids are written as strings (`"42"`).
 */
export function checkExternalId(value: unknown): { ok: true; externalId: string | null } | { ok: false; reason: string } {
  if (value === undefined || value === null) return { ok: true, externalId: null }
  if (typeof value !== 'string') return { ok: false, reason: 'externalId must be a string' }
  if (!isSafeText(value)) return { ok: false, reason: 'externalId has a control character or invalid Unicode' }
  const externalId = value.trim()
  if (!externalId) return { ok: false, reason: 'externalId is empty' }
  // code points, as PostgreSQL's char_length counts them; past twice the bound in UTF-16 units it is over in code points too
  if (externalId.length > 2 * EXTERNAL_ID_MAX || [...externalId].length > EXTERNAL_ID_MAX) return { ok: false, reason: `externalId is longer than ${EXTERNAL_ID_MAX} characters` }
  return { ok: true, externalId }
}
