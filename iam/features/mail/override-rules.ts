/**
 * The rules of an administrator's words for a mail (PUT /admin/mail-templates/:kind/:locale): each
 * key is one of the mail's texts, each text names only the placeholders of that key's English text
 * (so every value the template fills in exists, in every language), and a text is plain text: no
 * tag, comment or character reference. Texts are escaped when the mail is rendered anyway
 * (templates.ts); refusing markup says so to the administrator instead of mailing `<b>` as typed.
 * Pure.
 */
import { CATALOGUES, type MailKind } from './catalogue/catalogues'
import { placeholdersOf } from './format'

/** A tag or its end, a comment, a doctype or processing instruction, or a character reference. */
const MARKUP = /<[A-Za-z/!?]|&(?:#\d+|#x[\da-f]+|[A-Za-z][A-Za-z\d]*);/i

export type OverrideCheck =
  | { ok: true; texts: Record<string, string> }
  | { ok: false; code: 'mail_text_unknown' | 'mail_placeholder_unknown' | 'mail_text_markup'; key: string; message: string }

/** The English text of each key of a mail: what an override of the key may name. */
export const englishTexts = (kind: MailKind): Readonly<Record<string, string>> => CATALOGUES.en.mails[kind]

/** Checks every key and text; the first fault found is the answer, by the key's order in the body. */
export function checkOverride(kind: MailKind, texts: Readonly<Record<string, string>>): OverrideCheck {
  const english = englishTexts(kind)
  for (const [key, text] of Object.entries(texts)) {
    if (!Object.hasOwn(english, key)) return { ok: false, code: 'mail_text_unknown', key, message: `Not a text of this mail; one of ${Object.keys(english).join(', ')}` }
    if (MARKUP.test(text)) return { ok: false, code: 'mail_text_markup', key, message: 'Plain text only: no tags or character references' }
    const allowed = placeholdersOf(english[key]!)
    const unknown = placeholdersOf(text).filter((name) => !allowed.includes(name))
    if (unknown.length) {
      const may = allowed.length ? `it may name ${allowed.map((n) => `{${n}}`).join(', ')}` : 'it names none'
      return { ok: false, code: 'mail_placeholder_unknown', key, message: `Unknown placeholder ${unknown.map((n) => `{${n}}`).join(', ')}: ${may}` }
    }
  }
  return { ok: true, texts: { ...texts } }
}
