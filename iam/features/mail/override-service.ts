/**
 * A platform administrator's words for a mail in one language: read, store, remove, preview
 * (routes under /admin/mail-templates, docs/i18n.md "Overriding a mail"). Stored texts are checked
 * (override-rules.ts) and applied by the mailer to every mail of that kind and language.
 */
import type { Locale } from '../../contract/locales'
import type { IamContext } from '../../context'
import type { MailKind } from './catalogue/catalogues'
import { CATALOGUES } from './catalogue/catalogues'
import { placeholdersOf } from './format'
import { checkOverride, englishTexts, type OverrideCheck } from './override-rules'
import { deleteMailOverride, findMailOverride, saveMailOverride } from './overrides-repo'
import { sampleMail } from './sample-mails'
import type { MailContent } from './templates'

export interface MailTemplateView {
  kind: MailKind
  locale: Locale
  defaults: Record<string, string>
  overrides: Record<string, string>
  placeholders: Record<string, string[]>
  updatedAt: string | null
}

type Refusal = Extract<OverrideCheck, { ok: false }>

/** The mail kind in the language as the console shows it. */
export async function readMailTemplate(ctx: IamContext, kind: MailKind, locale: Locale): Promise<MailTemplateView> {
  const stored = await findMailOverride(ctx.db, kind, locale)
  const english = englishTexts(kind)
  return {
    kind,
    locale,
    defaults: { ...CATALOGUES[locale].mails[kind] },
    overrides: stored?.texts ?? {},
    placeholders: Object.fromEntries(Object.entries(english).map(([key, text]) => [key, placeholdersOf(text)])),
    updatedAt: stored ? stored.updatedAt.toISOString() : null,
  }
}

/** Replaces the override with `texts` once every text passes its rules. */
export async function saveMailTemplate(
  ctx: IamContext,
  input: { kind: MailKind; locale: Locale; texts: Record<string, string>; adminPublicId: string | null },
): Promise<{ ok: true; view: MailTemplateView } | Refusal> {
  const checked = checkOverride(input.kind, input.texts)
  if (!checked.ok) return checked
  await saveMailOverride(ctx.db, { kind: input.kind, locale: input.locale, texts: checked.texts, updatedBy: input.adminPublicId, at: new Date(ctx.now()) })
  ctx.log.info('mail override stored', { kind: input.kind, locale: input.locale, keys: Object.keys(checked.texts), admin: input.adminPublicId })
  return { ok: true, view: await readMailTemplate(ctx, input.kind, input.locale) }
}

export async function deleteMailTemplate(ctx: IamContext, kind: MailKind, locale: Locale, adminPublicId: string | null): Promise<boolean> {
  const deleted = await deleteMailOverride(ctx.db, kind, locale)
  if (deleted) ctx.log.info('mail override removed', { kind, locale, admin: adminPublicId })
  return deleted
}

/** The mail with sample values: with `texts` when given (checked, not stored), else with the stored override. */
export async function previewMailTemplate(ctx: IamContext, input: { kind: MailKind; locale: Locale; texts?: Record<string, string> | undefined }): Promise<{ ok: true; mail: MailContent } | Refusal> {
  let texts: Record<string, string>
  if (input.texts) {
    const checked = checkOverride(input.kind, input.texts)
    if (!checked.ok) return checked
    texts = checked.texts
  } else {
    texts = (await findMailOverride(ctx.db, input.kind, input.locale))?.texts ?? {}
  }
  // in the team's brand, as the mailer sends it (mailer.ts)
  const mail = sampleMail(input.kind, input.locale, ctx.config.email.siteName, ctx.config.magic_links.domain).renderWith({ texts, brand: ctx.config.email.brand })
  return { ok: true, mail: { subject: mail.subject, html: mail.html, text: mail.text } }
}
