/**
 * The organization pages' words in the page's language (i18n/locales, `orgs.`): a built-in role's
 * name, what a permission allows, and the sentence for a refused organization call. The keys come
 * from composables/org-words.ts; call in a component's setup.
 */
import type { BffResult } from './useBff'
import { BUILT_IN_ROLE_KEYS, PERMISSION_KEYS } from './org-words'

export function useOrgWords() {
  const { t } = useI18n()
  const { describeFailure } = useFailureWords()

  /** "Owner", "Admin", "Member" in the language, or a custom role's name as its owners wrote it. */
  const roleInWords = (roleName: string): string => (Object.hasOwn(BUILT_IN_ROLE_KEYS, roleName) ? t(BUILT_IN_ROLE_KEYS[roleName]!) : roleName)

  /** What a permission of the IAM allows, in words; an app's own `resource:action` as the string itself. */
  const permissionInWords = (permission: string): string => {
    const key = (PERMISSION_KEYS as Record<string, string>)[permission]
    return key ? t(key) : permission
  }

  /**
   * The sentence for an organization call the IAM refused: on someone's behalf, a role that does
   * not allow it, an organization gone (by the answer's `code`), else the code's own sentence.
   */
  function orgFailure(result: BffResult): string {
    if (result.status === 403 && result.body.impersonated === true) return t('orgs.failure.impersonated')
    if (result.status === 403 && result.body.code === 'org_permission_denied') return t('orgs.failure.roleDenied')
    if (result.body.code === 'org_not_found') return t('orgs.failure.gone')
    return describeFailure(result)
  }

  return { roleInWords, permissionInWords, orgFailure }
}
