/**
 * What was wrong with each refused field of a `validation_failed` answer, as a code from a small
 * fixed list (and the limit it broke), beside the field's English sentence in `fields`. The
 * sentence is zod's and stays English; a page says the code in the person's language
 * (composables/failure-words.ts, `formError.field*` of i18n/locales), and a client of the API may
 * branch on the code without reading a sentence. The IAM (iam/http/auth.ts) and the BFF
 * (server/utils/bff/input.ts) refuse bodies with the same schemas and build both maps the same way.
 */
import type { z } from 'zod'

/** The codes a field refusal can have; a code a page does not know reads as `invalid`. */
export const FIELD_ISSUE_CODES = ['required', 'too_long', 'too_short', 'too_many', 'too_few', 'too_large', 'too_small', 'invalid'] as const
export type FieldIssueCode = (typeof FIELD_ISSUE_CODES)[number]

/** One field's refusal: the code and, for a bound, the bound itself (characters, items or the number). */
export interface FieldIssue {
  code: FieldIssueCode
  limit?: number
}

type Issue = z.core.$ZodIssue

/** A bound of a length as the person may use it: an exclusive one is the next whole length inside it. */
function lengthLimit(bound: number | bigint, inclusive: boolean | undefined, step: 1 | -1): number {
  const value = Number(bound)
  return inclusive === false ? value - step : value
}

/** The issue as a field refusal; `present` says whether the field was in the input at all. */
export function fieldIssueOf(issue: Issue, present: boolean): FieldIssue {
  if (!present && issue.path.length > 0) return { code: 'required' }
  if (issue.code === 'too_big') {
    if (issue.origin === 'string') return { code: 'too_long', limit: lengthLimit(issue.maximum, issue.inclusive, 1) }
    if (issue.origin === 'array' || issue.origin === 'set') return { code: 'too_many', limit: lengthLimit(issue.maximum, issue.inclusive, 1) }
    // an exclusive bound of a number has no largest number inside it to name
    if ((issue.origin === 'number' || issue.origin === 'int') && issue.inclusive !== false) return { code: 'too_large', limit: Number(issue.maximum) }
  }
  if (issue.code === 'too_small') {
    // an empty text where one is needed (min(1)) is a field left empty, whatever it says
    if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? { code: 'required' } : { code: 'too_short', limit: lengthLimit(issue.minimum, issue.inclusive, -1) }
    if (issue.origin === 'array' || issue.origin === 'set') return { code: 'too_few', limit: lengthLimit(issue.minimum, issue.inclusive, -1) }
    if ((issue.origin === 'number' || issue.origin === 'int') && issue.inclusive !== false) return { code: 'too_small', limit: Number(issue.minimum) }
  }
  return { code: 'invalid' }
}

/**
 * The `fields` and `fieldIssues` of a refused input: per top-level field (`rootKey` for an issue
 * of the whole input, such as an unknown key), the first issue's sentence and its code.
 */
export function refusedFields(error: z.ZodError, input: unknown, rootKey: string): { fields: Record<string, string>; fieldIssues: Record<string, FieldIssue> } {
  const fields: Record<string, string> = {}
  const fieldIssues: Record<string, FieldIssue> = {}
  const given = input !== null && typeof input === 'object' ? (input as Record<string, unknown>) : {}
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? rootKey)
    if (Object.hasOwn(fields, key)) continue
    fields[key] = issue.message
    fieldIssues[key] = fieldIssueOf(issue, issue.path.length === 0 || (Object.hasOwn(given, key) && given[key] !== undefined && given[key] !== null))
  }
  return { fields, fieldIssues }
}
