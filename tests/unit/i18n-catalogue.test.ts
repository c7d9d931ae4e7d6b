/**
 * The page catalogues (i18n/locales/<code>.json, docs/i18n.md): every language has exactly the keys
 * of English with the same placeholders, every key is used by a source file, and the pages already
 * converted to keys hold no English a person reads in their templates.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { pluralCategories, pluralIndex } from '../../i18n/plural-forms'
import { ROOT } from '../helpers/build'

const LOCALES = ['en', 'de', 'fr', 'es', 'ja', 'ar'] as const

/**
 * Keys a source builds at run time from a prefix (`t(\`prefix.${code}\`)`): a key under one of these
 * counts as used without its literal. `errors.`: one sentence per failure code (composables/failure-words.ts);
 * `oauthError.`: the title and text per OAuth error code (utils/oauth-errors.ts);
 * the factor words of composables/security-event-label.ts; the mail kinds' names of pages/admin/mails.vue.
 */
const DYNAMIC_PREFIXES: readonly string[] = ['errors.', 'passwordStrength.', 'oauthError.', 'activity.factorAdded.', 'activity.factorRemoved.', 'activity.adminFactorRemoved.', 'admin.mails.kinds.']

/** The files converted to catalogue keys; the others stay English until they are converted. */
const CONVERTED = [
  'app.vue',
  'error.vue',
  'layouts/default.vue',
  'pages/login.vue',
  'pages/signup.vue',
  'pages/forgot-password.vue',
  'pages/reset-password.vue',
  'pages/index.vue',
  'pages/auth/mfa.vue',
  'pages/auth/confirm.vue',
  'pages/auth/email-sign-in.vue',
  'pages/interaction/[uid].vue',
  'components/LanguageSwitcher.vue',
  'components/SiteHeader.vue',
  'components/AccountMenu.vue',
  'components/FormField.vue',
  'components/FormAlert.vue',
  'components/OAuthButtons.vue',
  'components/PasskeySignIn.vue',
  'components/NewPasswordFields.vue',
  'components/PasswordStrengthMeter.vue',
  'components/SecondFactorStep.vue',
  'components/MfaCodeEntry.vue',
  'components/EmailedCodeField.vue',
  'components/ReauthenticatePrompt.vue',
  'components/EmailSignInSent.vue',
  'components/BotCheckStatus.vue',
  'pages/admin/bootstrap.vue',
  'pages/account/index.vue',
  'pages/account/security.vue',
  'pages/account/sessions.vue',
  'pages/account/apps.vue',
  'pages/account/data.vue',
  'components/AccountConsole.vue',
  'components/AccountNav.vue',
  'components/AccountSessions.vue',
  'components/ConnectedApps.vue',
  'components/DataExport.vue',
  'components/DeleteAccount.vue',
  'components/EmailChangeSecondFactor.vue',
  'components/FlashNotices.vue',
  'components/InlineConfirm.vue',
  'components/InlineTextEdit.vue',
  'components/LinkedAccounts.vue',
  'components/PasskeysSection.vue',
  'components/PasswordChangeForm.vue',
  'components/PendingEmailChange.vue',
  'components/SecurityActivity.vue',
  'components/SetPasswordForm.vue',
  'components/TwoStepSignIn.vue',
  'pages/tokens.vue',
  'components/TokenCreateForm.vue',
  'components/TokenItem.vue',
  'components/TokenVerifyHelp.vue',
  'components/RawTokenNotice.vue',
  'pages/auth/error.vue',
  'pages/auth/verify-email.vue',
  'pages/auth/delete-account.vue',
  'pages/auth/undo-delete-account.vue',
  'pages/auth/undo-email-change.vue',
  'components/SuspendedNotice.vue',
  'components/OrgSwitcher.vue',
  'components/ImpersonationBanner.vue',
  'pages/orgs/invitations/accept.vue',
  'pages/orgs/index.vue',
  'pages/orgs/[orgId].vue',
  'components/OrgMembers.vue',
  'components/OrgPersonRow.vue',
  'components/OrgInvitations.vue',
  'components/OrgRoles.vue',
  'components/OrgLeaveDelete.vue',
  'components/OrgDomains.vue',
  'components/OrgSso.vue',
  'components/OrgScim.vue',
  'components/CopyValue.vue',
  'pages/admin/index.vue',
  'pages/admin/users/[id].vue',
  'pages/admin/orgs/index.vue',
  'pages/admin/orgs/[id].vue',
  'components/AdminNav.vue',
  'components/AdminPage.vue',
  'components/AdminPageNotice.vue',
  'components/AdminSearchList.vue',
  'components/AdminSuspendForm.vue',
  'pages/admin/mails.vue',
  'pages/admin/webhooks.vue',
  'components/AdminWebhookForm.vue',
  'components/AdminWebhookDeliveries.vue',
  'components/WebhookEndpoints.vue',
  'components/OrgWebhooks.vue',
]

/**
 * Words a converted template may show as they are: the product's name, the wire values of the
 * API-token pages that a script sends or reads (a header's name, the verify route's answer), and the
 * DNS record type an owner enters at their DNS host (RFC 1035 section 3.3.14).
 */
const UNTRANSLATED_WORDS = new Set(['Identity', 'x-api-key', 'Invalid key', 'TXT'])

type Catalogue = { [key: string]: string | Catalogue }

function flatten(catalogue: Catalogue, prefix = ''): Map<string, string> {
  const out = new Map<string, string>()
  for (const [key, value] of Object.entries(catalogue)) {
    const path = prefix ? `${prefix}.${key}` : key
    if (typeof value === 'string') out.set(path, value)
    else for (const [k, v] of flatten(value, path)) out.set(k, v)
  }
  return out
}

const catalogue = (code: string) => flatten(JSON.parse(readFileSync(join(ROOT, 'i18n', 'locales', `${code}.json`), 'utf8')) as Catalogue)

/** The named placeholders of a message ({name}); a literal such as {'@'} is not one. */
const placeholders = (message: string) => [...new Set([...message.matchAll(/\{\s*([A-Za-z_]\w*)\s*\}/g)].map((m) => m[1]))].sort()

function sourceFiles(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path))
    else if (/\.(vue|ts)$/.test(name)) out.push(path)
  }
  return out
}

const SOURCES = [
  ...['pages', 'components', 'composables', 'layouts'].flatMap((dir) => sourceFiles(join(ROOT, dir))),
  join(ROOT, 'app.vue'),
  join(ROOT, 'error.vue'),
].map((path) => readFileSync(path, 'utf8'))

const english = catalogue('en')

/** A message with its literals ({'|'}) taken out: what vue-i18n's syntax reads. */
const syntaxOf = (message: string) => message.replace(/\{'[^']*'\}/g, '')

/**
 * The counted messages: those whose English has more than one form (`one | other`). Each language
 * writes one form per plural category it has (i18n/plural-forms.ts), Japanese a single one.
 */
const COUNTED = new Set([...english].filter(([, message]) => syntaxOf(message).includes('|')).map(([key]) => key))

/**
 * The text a template shows a person: text between tags outside `{{ }}`, and the static attributes
 * people read (label, hint, title, placeholder, aria-label, alt, message). Comments are dropped.
 */
function visibleTemplateText(source: string): string[] {
  const template = /<template>([\s\S]*)<\/template>/.exec(source)?.[1] ?? ''
  const withoutComments = template.replace(/<!--[\s\S]*?-->/g, '')
  const texts: string[] = []
  for (const m of withoutComments.matchAll(/>([^<]+)</g)) texts.push(m[1]!.replace(/\{\{[\s\S]*?\}\}/g, ' '))
  for (const m of withoutComments.matchAll(/\s(?:label|hint|title|placeholder|alt|message|[a-z]+-label)="([^"]*)"/g)) texts.push(m[1]!)
  return texts.map((text) => text.replace(/\s+/g, ' ').trim()).filter((text) => /[A-Za-z]{2,}/.test(text) && !UNTRANSLATED_WORDS.has(text))
}

describe('page catalogues', () => {
  it.each(LOCALES.filter((code) => code !== 'en'))('%s has exactly the keys of English', (code) => {
    const keys = [...catalogue(code).keys()].sort()
    expect(keys.filter((key) => !english.has(key)), 'keys English lacks').toEqual([])
    expect([...english.keys()].filter((key) => !keys.includes(key)), 'keys missing').toEqual([])
  })

  it.each(LOCALES.filter((code) => code !== 'en'))('%s uses the placeholders of English in every message', (code) => {
    const messages = catalogue(code)
    const differing = [...english].filter(([key, message]) => messages.has(key) && placeholders(messages.get(key)!).join() !== placeholders(message).join())
    expect(differing.map(([key]) => key)).toEqual([])
  })

  it.each(LOCALES)('%s has no message the message syntax would misread (a bare @, or a | outside a counted message)', (code) => {
    // vue-i18n reads @ as a linked message and | as a plural separator; a literal one is written {'@'}
    const misread = [...catalogue(code)].filter(([key, message]) => (COUNTED.has(key) ? /@/ : /[@|]/).test(syntaxOf(message)))
    expect(misread.map(([key]) => key)).toEqual([])
  })

  it.each(LOCALES)('%s writes each counted message with one form per plural category of the language', (code) => {
    const forms = pluralCategories(code).length
    const messages = catalogue(code)
    const wrong = [...COUNTED].filter((key) => messages.has(key) && syntaxOf(messages.get(key)!).split('|').length !== forms)
    expect(wrong, `${code} has ${forms} plural forms`).toEqual([])
    const emptyForm = [...COUNTED].filter((key) => syntaxOf(messages.get(key) ?? '').split('|').some((form) => form.trim() === ''))
    expect(emptyForm).toEqual([])
  })

  it('the counted messages include the sentences that count sessions, codes, tokens and accounts', () => {
    expect([...COUNTED]).toEqual(expect.arrayContaining(['account.sessions.othersEnded', 'account.twoStep.codesLeft', 'tokens.revokedCount', 'activity.usersImportedCount']))
  })

  it('the plural forms follow the language: Arabic has six, Japanese one, French one for 0 and 1', () => {
    expect(pluralCategories('ar')).toEqual(['zero', 'one', 'two', 'few', 'many', 'other'])
    expect(pluralCategories('ja')).toEqual(['other'])
    expect(pluralCategories('en')).toEqual(['one', 'other'])
    expect([0, 1, 2].map((n) => pluralIndex('fr', n, 3))).toEqual([0, 0, 2])
    expect([0, 1, 2, 3, 11, 100].map((n) => pluralIndex('ar', n, 6))).toEqual([0, 1, 2, 3, 4, 5])
  })

  it('every key is used by a source file (or is under a listed dynamic prefix)', () => {
    const unused = [...english.keys()].filter(
      (key) => !DYNAMIC_PREFIXES.some((prefix) => key.startsWith(prefix)) && !SOURCES.some((source) => source.includes(`'${key}'`) || source.includes(`"${key}"`)),
    )
    expect(unused).toEqual([])
  })

  it('every key a converted file names exists in English', () => {
    const named = CONVERTED.flatMap((file) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(/(?:\bt\(|keypath=")'?([a-zA-Z][\w]*(?:\.[\w]+)+)/g)].map((m) => m[1]!))
    expect([...new Set(named)].filter((key) => !english.has(key))).toEqual([])
  })

  it.each(CONVERTED)('%s shows no English text of its own in its template', (file) => {
    const path = join(ROOT, file)
    expect(visibleTemplateText(readFileSync(path, 'utf8')), relative(ROOT, path)).toEqual([])
  })
})
