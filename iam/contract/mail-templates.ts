/**
 * A platform administrator's own words for a mail in one language (docs/i18n.md "Overriding a
 * mail", features/mail/override-service.ts): read, replace, remove and preview the override of one
 * mail kind in one language. Admin routes: full authentication, `platform-admin` and
 * `recent-sign-in` (contract/admin.ts).
 */
import { z } from 'zod'
import { ADMIN, ADMIN_GUARDS } from './admin'
import { defineRoutes, json, noBody } from './define'
import { SUPPORTED_LOCALES } from './locales'
import { MAIL_KINDS } from './mail-kinds'
import { errorFail, failure, JSON_BODY_FIELDS, okData, responses } from './responses'
import { safeString } from './text'

export { MAIL_KINDS } from './mail-kinds'

/** The longest override text: a paragraph of a mail, not a document. */
export const MAIL_TEXT_MAX = 2000

const params = z.object({
  kind: z.enum(MAIL_KINDS, { error: `kind: one of ${MAIL_KINDS.join(', ')}` }),
  locale: z.enum(SUPPORTED_LOCALES, { error: `locale: one of ${SUPPORTED_LOCALES.join(', ')}` }),
})

/** Catalogue key of the mail -> plain text (no markup) naming only the English text's placeholders. */
const texts = z.record(
  z.string().regex(/^[A-Za-z][A-Za-z0-9]{0,39}$/, 'A text key of the mail'),
  safeString().trim().min(1, 'Text is required').max(MAIL_TEXT_MAX, `At most ${MAIL_TEXT_MAX} characters`),
)

const overrideBody = z.strictObject({ texts })

/** A mail kind in a language as the console shows it: the catalogue's words, the override, the placeholders each text may name. */
const templateView = z.object({
  kind: z.enum(MAIL_KINDS),
  locale: z.enum(SUPPORTED_LOCALES),
  defaults: z.record(z.string(), z.string()).describe("the catalogue's words of each text key"),
  overrides: z.record(z.string(), z.string()).describe('the stored override of each key it has; empty when none'),
  placeholders: z.record(z.string(), z.array(z.string())).describe('the `{name}` placeholders each key may name (those of its English text)'),
  updatedAt: z.string().nullable().describe('when the override was stored; null when none'),
})

const REFUSED_TEXTS = {
  400: failure(
    'Validation failed (`fields`), a key the mail does not have (`mail_text_unknown`), a placeholder its English text lacks (`mail_placeholder_unknown`), or markup (`mail_text_markup`): texts are plain text',
    errorFail,
    'validation_failed',
    'mail_text_unknown',
    'mail_placeholder_unknown',
    'mail_text_markup',
  ),
}
const BAD_PARAMS = { 400: failure('An unknown mail kind or language (`fields.kind`, `fields.locale`)', errorFail, 'validation_failed') }

export const MAIL_TEMPLATE_ROUTES = defineRoutes({
  adminMailTemplate: {
    method: 'GET',
    path: '/admin/mail-templates/:kind/:locale',
    summary: "One mail in one language: the catalogue's words, the stored override and the placeholders each text may name",
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    request: noBody,
    params,
    responses: responses({ 200: { description: 'the mail kind in the language', body: okData(templateView) } }, BAD_PARAMS, ADMIN),
  },
  adminMailTemplateSave: {
    method: 'PUT',
    path: '/admin/mail-templates/:kind/:locale',
    summary: 'Replace the override of one mail in one language with `texts` (plain text per key; a key left out keeps the catalogue’s words)',
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    request: json(),
    params,
    body: overrideBody,
    responses: responses({ 200: { description: 'stored: the mail kind in the language', body: okData(templateView) } }, REFUSED_TEXTS, JSON_BODY_FIELDS, ADMIN),
  },
  adminMailTemplateDelete: {
    method: 'DELETE',
    path: '/admin/mail-templates/:kind/:locale',
    summary: 'Remove the override of one mail in one language: the catalogue’s words apply again',
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    request: noBody,
    params,
    responses: responses({ 200: { description: 'removed (`deleted: false`: there was none)', body: okData(z.object({ deleted: z.boolean() })) } }, BAD_PARAMS, ADMIN),
  },
  adminMailTemplatePreview: {
    method: 'POST',
    path: '/admin/mail-templates/:kind/:locale/preview',
    summary: 'The mail rendered with sample values: with `texts` when given (nothing stored), else with the stored override',
    auth: 'full',
    guards: ADMIN_GUARDS,
    limiters: [],
    request: json(),
    params,
    body: z.strictObject({ texts: texts.optional() }),
    responses: responses(
      { 200: { description: 'the rendered mail', body: okData(z.object({ subject: z.string(), html: z.string(), text: z.string() })) } },
      REFUSED_TEXTS,
      JSON_BODY_FIELDS,
      ADMIN,
    ),
  },
})
